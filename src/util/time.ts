/** Catalog timestamps are ISO-8601 UTC text with milliseconds, which sorts correctly as text. */
export function nowIso(): string {
  return new Date().toISOString();
}
