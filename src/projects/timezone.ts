const CANONICAL = new Map([...Intl.supportedValuesOf('timeZone'), 'UTC', 'Etc/UTC', 'GMT', 'Etc/GMT'].map((zone) => [zone.toLowerCase(), zone]));

/** Alias names are written with a capital letter per segment (`US/Pacific`, `Etc/GMT+5`). */
const PROPERLY_CASED_ALIAS = /^[A-Z][A-Za-z0-9_+-]*(\/[A-Z][A-Za-z0-9_+-]*)*$/;

/**
 * The IANA zone name to store, or null when the name is not a zone. ClickHouse matches zone
 * names case-sensitively, so canonical names are normalised to their proper case, properly
 * cased aliases such as `US/Pacific` are kept as given, and other spellings become the
 * canonical zone they resolve to.
 */
export function normaliseTimezone(name: string): string | null {
  if (name.trim() === '' || name !== name.trim()) return null;
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
  return CANONICAL.get(name.toLowerCase()) ?? (PROPERLY_CASED_ALIAS.test(name) ? name : resolved);
}
