/** Epoch milliseconds (fractional for microseconds) as whole epoch microseconds. */
export function epochMsToMicros(timeMs: number): number {
  const whole = Math.floor(timeMs);
  return whole * 1000 + Math.min(999, Math.round((timeMs - whole) * 1000));
}

/** Epoch milliseconds (fractional for microseconds) as ISO-8601 UTC with six fractional digits. */
export function isoWithMicros(timeMs: number): string {
  const micros = epochMsToMicros(timeMs);
  const whole = Math.floor(micros / 1000);
  return `${new Date(whole).toISOString().slice(0, 23)}${String(micros - whole * 1000).padStart(3, '0')}Z`;
}
