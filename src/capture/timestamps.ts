import { ingestionWarning, type IngestionWarning } from './ingestion-warning.js';
import { HOUR_MS } from '../util/time.js';

/**
 * Event time as PostHog's capture computes it. Times are epoch
 * milliseconds as floats so microseconds survive (`.123456` → `…123.456`).
 */

const ISO_LIKE = /^(\d{4})[-/](\d{1,2})[-/](\d{1,2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?\s*(Z|UTC|[+-]\d{2}(?::?\d{2})?)?$/i;
const NUMERIC = /^-?\d+(\.\d+)?$/;
const FUTURE_TOLERANCE_MS = 23 * HOUR_MS;
/** The warehouse's DateTime64 columns hold 1900-01-01 to 2299-12-31; the future clamp keeps times far below the end. */
const MIN_STORABLE_TIME_MS = Date.UTC(1900, 0, 1);

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

/** The furthest a JavaScript date reaches either side of 1970, in milliseconds. */
const MAX_DATE_MS = 8.64e15;

/** Parses the time formats PostHog's capture accepts; null when the text is not a time a date can hold. */
export function parseTimestamp(text: string): number | null {
  const value = text.trim();
  if (value === '') return null;
  let parsed: number | null = null;
  const iso = ISO_LIKE.exec(value);
  if (iso) {
    parsed = fromIsoLike(iso);
  } else if (NUMERIC.test(value)) {
    const number = Number(value);
    // Thirteen or more digits are milliseconds, fewer are seconds.
    parsed = Math.abs(number) >= 1e11 ? number : number * 1000;
  } else if (/[a-z]/i.test(value)) {
    parsed = Date.parse(value);
  }
  return parsed !== null && Math.abs(parsed) <= MAX_DATE_MS ? parsed : null;
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

export interface ResolvedEventTime {
  /** Epoch milliseconds, always one the warehouse can store. */
  time: number;
  /** Why the time is not the one the event gave, when the event's was unusable (without the event's uuid). */
  warning: IngestionWarning | null;
}

/**
 * The stored event time: skew-corrected, offset honoured; garbage, a time more than 23 hours
 * ahead or one before 1900 (the warehouse's first storable instant) becomes now, with a warning
 * that keeps what the event said.
 */
export function resolveEventTime(input: TimestampInput): ResolvedEventTime {
  const { now } = input;
  const parsed = typeof input.timestamp === 'string' ? parseTimestamp(input.timestamp) : null;
  let time: number;
  let warning: IngestionWarning | null = null;
  if (parsed !== null && input.sentAt !== null && !input.ignoreSentAt) {
    time = now + (parsed - input.sentAt);
  } else if (parsed !== null) {
    time = parsed;
  } else {
    time = now;
    if (typeof input.timestamp === 'string' && input.timestamp.trim() !== '') {
      warning = ingestionWarning('ignored_invalid_timestamp', { field: 'timestamp', value: input.timestamp, reason: 'not a date and time' });
    }
  }
  const offsetUsed = typeof input.offset === 'number' && Number.isFinite(input.offset);
  if (offsetUsed) time = now - (input.offset as number);
  if (time > now + FUTURE_TOLERANCE_MS) {
    warning = ingestionWarning('event_timestamp_in_future', {
      timestamp: input.timestamp,
      sentAt: input.sentAt === null ? null : new Date(input.sentAt).toISOString(),
      offset: offsetUsed ? input.offset : null,
      now: new Date(now).toISOString(),
      result: new Date(now).toISOString(),
    });
    time = now;
  } else if (!(time >= MIN_STORABLE_TIME_MS)) {
    warning = ingestionWarning('ignored_invalid_timestamp', {
      field: offsetUsed ? 'offset' : 'timestamp',
      value: offsetUsed ? input.offset : input.timestamp,
      sentAt: input.sentAt === null ? null : new Date(input.sentAt).toISOString(),
      reason: 'before 1900-01-01, the earliest time events are stored with',
    });
    time = now;
  }
  return { time, warning };
}

/**
 * Whether a resolved time can be stored as it is, for an event received at `receivedAt`: what
 * `resolveEventTime` gives always can; a capture log written by an older build may hold others.
 */
export function isStorableEventTime(time: number, receivedAt: number): boolean {
  return time >= MIN_STORABLE_TIME_MS && time <= receivedAt + FUTURE_TOLERANCE_MS;
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
