/**
 * Whether a parsed JSON value nests arrays and objects more than `limit` levels deep (the value
 * itself, if an array or object, is level one). Descends no further than `limit + 1` levels, so a
 * value nested a hundred thousand levels deep costs no more than one just over the limit.
 */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (limit === 0) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (nestsDeeperThan(item, limit - 1)) return true;
    return false;
  }
  // Every request's events pass through here: `for…in` walks a parsed object without copying
  // its values into an array (JSON objects have no inherited enumerable keys).
  const object = value as Record<string, unknown>;
  for (const key in object) if (nestsDeeperThan(object[key], limit - 1)) return true;
  return false;
}
