/**
 * `String(value)` for values from request bodies and stored JSON, without its one failure: an
 * object can carry its own `toString` or `valueOf` key of any value, and `String()` then throws.
 * Such an object becomes its JSON text; everything else gives exactly what `String()` gives.
 */
export function textOf(value: unknown): string {
  if (Array.isArray(value)) return value.map((item) => (item === null || item === undefined ? '' : textOf(item))).join(',');
  if (typeof value === 'object' && value !== null && (Object.hasOwn(value, 'toString') || Object.hasOwn(value, 'valueOf'))) {
    return JSON.stringify(value);
  }
  return String(value);
}
