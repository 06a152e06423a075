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

/** ISO-8601 UTC text, with up to six fractional digits kept, as whole epoch microseconds. */
export function isoToMicros(iso: string): number {
  const fraction = /\.(\d+)Z$/.exec(iso)?.[1];
  const ms = Date.parse(iso);
  if (fraction === undefined) return ms * 1000;
  const seconds = Math.floor(ms / 1000);
  return seconds * 1_000_000 + Number(fraction.padEnd(6, '0').slice(0, 6));
}
