import { isDeepStrictEqual } from 'node:util';

/** Parses a JSON column; the catalog only ever stores JSON it wrote itself. */
export function parseJsonColumn<T>(text: string | null, fallback: T): T {
  if (text === null || text === '') return fallback;
  return JSON.parse(text) as T;
}

/** A JSON object: not null, not an array. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Equality of two JSON values (as parsed from JSON: no dates, maps or prototypes). */
export function isIdenticalJson(a: unknown, b: unknown): boolean {
  return a === b || isDeepStrictEqual(a, b);
}
