import { isDeepStrictEqual } from 'node:util';

/** Equality of two JSON values (as parsed from JSON: no dates, maps or prototypes). */
export function isIdenticalJson(a: unknown, b: unknown): boolean {
  return a === b || isDeepStrictEqual(a, b);
}
