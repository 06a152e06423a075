/**
 * Event time as PostHog's capture computes it (ingestion spec A2). Times are epoch
 * milliseconds as floats so microseconds survive (`.123456` → `…123.456`).
 */

const ISO_LIKE =
  /^(\d{4})[-/](\d{1,2})[-/](\d{1,2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?\s*(Z|UTC|[+-]\d{2}(?::?\d{2})?)?$/i;
const NUMERIC = /^-?\d+(\.\d+)?$/;
const HOUR_MS = 3_600_000;
const FUTURE_TOLERANCE_MS = 23 * HOUR_MS;
const MAX_TIME_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
const MIN_TIME_MS = new Date(0).setUTCFullYear(0, 0, 1);

function offsetMinutes(zone: string | undefined): number {
  if (!zone || /^(z|utc)$/i.test(zone)) return 0;
  const match = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone);
  if (!match) return 0;
  const minutes = Number(match[2]) * 60 + Number(match[3] ?? 0);
  return match[1] === '-' ? -minutes : minutes;
}

function fromIsoLike(match: RegExpExecArray): number | null {
  const [, y, mo, d, h = '0', mi = '0', s = '0', fraction = '', zone] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) return null;
  const utc = new Date(0);
  utc.setUTCFullYear(year, month - 1, day);
  utc.setUTCHours(hour, minute, second, 0);
  if (utc.getUTCDate() !== day) return null;
  const fractionMs = fraction ? Number(`0.${fraction.slice(0, 6)}`) * 1000 : 0;
  return utc.getTime() + fractionMs - offsetMinutes(zone) * 60_000;
}

/** Parses the time formats PostHog's capture accepts; null when the text is not a time. */
export function parseTimestamp(text: string): number | null {
  const value = text.trim();
  if (value === '') return null;
  const iso = ISO_LIKE.exec(value);
  if (iso) return fromIsoLike(iso);
  if (NUMERIC.test(value)) {
    const number = Number(value);
    // Thirteen or more digits are milliseconds, fewer are seconds.
    return Math.abs(number) >= 1e11 ? number : number * 1000;
  }
  if (/[a-z]/i.test(value)) {
    const parsed = Date.parse(value);
    return Number.isNaN(parsed) ? null : parsed;
  }
  return null;
}

export interface TimestampInput {
  timestamp: unknown;
  /** Milliseconds before `now` the event happened; wins over everything else. */
  offset: unknown;
  /** When the client sent the request, by the client's clock (epoch ms). */
  sentAt: number | null;
  ignoreSentAt: boolean;
  now: number;
}

/** The stored event time: skew-corrected, offset honoured, clamped; garbage becomes now. */
export function resolveEventTime(input: TimestampInput): number {
  const { now } = input;
  const parsed = typeof input.timestamp === 'string' ? parseTimestamp(input.timestamp) : null;
  let time: number;
  if (parsed !== null && input.sentAt !== null && !input.ignoreSentAt) {
    time = now + (parsed - input.sentAt);
  } else if (parsed !== null) {
    time = parsed;
  } else {
    time = now;
  }
  if (typeof input.offset === 'number' && Number.isFinite(input.offset)) time = now - input.offset;
  if (time > now + FUTURE_TOLERANCE_MS) time = now;
  if (time < MIN_TIME_MS || time > MAX_TIME_MS) time = 0;
  return time;
}

/** The request's `sent_at`: the batch body's ISO string, else the `_`/`sent_at` query value in ms. */
export function resolveSentAt(bodySentAt: unknown, query: Record<string, unknown>): number | null {
  if (typeof bodySentAt === 'string') {
    const parsed = parseTimestamp(bodySentAt);
    if (parsed !== null) return parsed;
  }
  for (const name of ['_', 'sent_at']) {
    const raw = query[name];
    if (typeof raw === 'string' && /^\d+$/.test(raw)) {
      const ms = Number(raw);
      // A value in seconds would decode to 1970; PostHog ignores anything up to 2020.
      if (new Date(ms).getUTCFullYear() > 2020) return ms;
    }
  }
  return null;
}

