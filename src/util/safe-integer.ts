/**
 * An integer parameter as a JavaScript number, clamped to the safe range: PostHog (Python) takes
 * integers of any size, and a huge offset or page is simply past the end of every list, while an
 * unsafe number would reach SQL as `1e+20`.
 */
export function safeInteger(value: string | number): number {
  return Math.max(Number.MIN_SAFE_INTEGER, Math.min(Number.MAX_SAFE_INTEGER, Number(value)));
}
