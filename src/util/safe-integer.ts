/**
 * An integer parameter as a JavaScript number, clamped to the safe range: PostHog (Python) takes
 * integers of any size, and a huge offset or page is simply past the end of every list, while an
 * unsafe number would reach SQL as `1e+20`.
 */
export function safeInteger(value: string | number): number {
  return Math.max(Number.MIN_SAFE_INTEGER, Math.min(Number.MAX_SAFE_INTEGER, Number(value)));
}

/** An integer given as a JSON number or its text, clamped as `safeInteger`; null for anything else. */
export function integerOrNull(value: unknown): number | null {
  if (typeof value === 'number' && Number.isInteger(value)) return safeInteger(value);
  if (typeof value === 'string' && /^-?\d+$/.test(value.trim())) return safeInteger(value.trim());
  return null;
}
