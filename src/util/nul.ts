/**
 * Text with U+0000 replaced by U+FFFD. PostgreSQL text cannot hold U+0000 and PostHog stores
 * U+FFFD in its place; Tally does the same on either catalog, so both store the same names.
 */
export function replaceNul(text: string): string {
  return text.includes('\u0000') ? text.replaceAll('\u0000', '\ufffd') : text;
}
