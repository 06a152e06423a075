export const DAY_MS = 86_400_000;
export const HOUR_MS = 3_600_000;

/** The digits of a date or time field, zero-padded to `width`; a sign is the caller's to write. */
export function zeroPad(value: number, width = 2): string {
  return String(Math.abs(value)).padStart(width, '0');
}

/** Catalog timestamps are ISO-8601 UTC text with milliseconds, which sorts correctly as text. */
export function nowIso(): string {
  return new Date().toISOString();
}
