/** The value types PostHog assigns to property definitions. `Duration` exists but is never detected. */
export type PropertyType = 'DateTime' | 'String' | 'Numeric' | 'Boolean' | 'Duration';

export const PROPERTY_TYPES: readonly PropertyType[] = ['DateTime', 'String', 'Numeric', 'Boolean', 'Duration'];

const SIX_MONTHS_SECONDS = 15_768_000;

// A key naming a moment makes a date-like or recent-unix-timestamp value a DateTime.
const DATETIME_KEY_WORDS = ['time', 'date', '_at', '-at', 'createdat', 'updatedat'];

// PostHog's best-effort "starts like a date" pattern: YYYY-MM-DD or MM-DD-YYYY (either separator),
// optionally followed by a time of day and anything after it.
const DATE_PREFIX = /^(([0-9]{4}[/-][0-2][0-9][/-][0-3][0-9])|([0-2][0-9][/-][0-3][0-9][/-][0-9]{4}))([ T][0-2][0-9]:[0-6][0-9]:[0-6][0-9].*)?$/;

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-](\d{2}):(\d{2}))$/;

const RFC2822 =
  /^(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun),\s*)?(\d{1,2})\s+(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\s+\d{2,4}\s+(\d{2}):(\d{2})(?::(\d{2}))?\s+(?:[+-]\d{4}|UT|GMT|[ECMP][SD]T|[A-IK-Za-ik-z])$/;

function within(value: string | undefined, min: number, max: number): boolean {
  const number = Number(value);
  return number >= min && number <= max;
}

function isRfc3339(text: string): boolean {
  const match = RFC3339.exec(text);
  if (!match) return false;
  const [, , month, day, hour, minute, second, , , offsetHours, offsetMinutes] = match;
  return (
    within(month, 1, 12) &&
    within(day, 1, 31) &&
    within(hour, 0, 23) &&
    within(minute, 0, 59) &&
    within(second, 0, 60) &&
    (offsetHours === undefined || (within(offsetHours, 0, 23) && within(offsetMinutes, 0, 59)))
  );
}

function isRfc2822(text: string): boolean {
  const match = RFC2822.exec(text);
  if (!match) return false;
  const [, day, hour, minute, second] = match;
  return within(day, 1, 31) && within(hour, 0, 23) && within(minute, 0, 59) && (second === undefined || within(second, 0, 60));
}

function isLikelyDateString(text: string): boolean {
  return isRfc3339(text) || isRfc2822(text) || DATE_PREFIX.test(text);
}

/** Only whole, non-negative numbers from the last six months (or later) read as unix seconds. */
function isLikelyUnixTimestamp(value: number, nowMs: number): boolean {
  return Number.isInteger(value) && value >= 0 && value >= Math.floor(nowMs / 1000) - SIX_MONTHS_SECONDS;
}

function namesAMoment(lowerKey: string): boolean {
  return DATETIME_KEY_WORDS.some((word) => lowerKey.includes(word));
}

/**
 * The type ingestion records for a property the first time it is seen, following PostHog's
 * property-defs writer: some keys are always strings (their first value is often misleading),
 * a moment-like key with a date-ish value is a DateTime, otherwise the value decides.
 * Null, objects and arrays have no type.
 */
export function detectPropertyType(key: string, value: unknown, nowMs: number = Date.now()): PropertyType | null {
  const lowerKey = key.toLowerCase();
  if (
    lowerKey.startsWith('utm_') ||
    lowerKey.startsWith('$initial_utm_') ||
    lowerKey.startsWith('$feature/') ||
    lowerKey === '$feature_flag_response' ||
    lowerKey.startsWith('$survey_response')
  ) {
    return 'String';
  }

  if (typeof value === 'string') {
    if (namesAMoment(lowerKey) && isLikelyDateString(value)) return 'DateTime';
    const trimmed = value.trim();
    if (trimmed === 'true' || trimmed === 'false' || trimmed === 'TRUE' || trimmed === 'FALSE') return 'Boolean';
    return isLikelyDateString(trimmed) ? 'DateTime' : 'String';
  }
  if (typeof value === 'number') {
    if (namesAMoment(lowerKey) && isLikelyUnixTimestamp(value, nowMs)) return 'DateTime';
    return 'Numeric';
  }
  if (typeof value === 'boolean') return 'Boolean';
  return null;
}
