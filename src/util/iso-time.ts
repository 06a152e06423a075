/** Epoch milliseconds (fractional for microseconds) as ISO-8601 UTC with six fractional digits. */
export function isoWithMicros(timeMs: number): string {
  const whole = Math.floor(timeMs);
  const micros = Math.min(999, Math.round((timeMs - whole) * 1000));
  return `${new Date(whole).toISOString().slice(0, 23)}${String(micros).padStart(3, '0')}Z`;
}
