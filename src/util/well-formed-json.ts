import { setProperty } from './merge-properties.js';
import { replaceNul } from './nul.js';

/** A `\u` escape of a UTF-16 surrogate (D800–DFFF), the way JSON text names a lone one. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/** The JSON escape of U+0000: JSON text cannot hold the character itself inside a string. */
const NUL_ESCAPE = '\\u0000';

/**
 * Parses JSON text, replacing every lone UTF-16 surrogate and every U+0000 in its keys and
 * strings with U+FFFD. PostHog's capture does so for surrogates before it deserialises a payload,
 * and its person store for NUL, which PostgreSQL text cannot hold. Either, kept, would fail far
 * behind the acknowledgement (a surrogate has no UTF-8 form for the person UUID hash and the
 * warehouse's JSON parser; a NUL in an anonymous id, a group key or a property name fails the
 * PostgreSQL catalog) and stop the processing of every event after it.
 *
 * Only text that can yield one is walked: text with a surrogate escape (valid pairs included:
 * some encoders escape every non-ASCII character) or a NUL escape, or text holding a raw
 * surrogate (lz-string decodes to any UTF-16). UTF-8 decoding never produces a surrogate.
 */
export function parseWellFormedJson(text: string): unknown {
  const value: unknown = JSON.parse(text);
  return parsesStorable(text) ? value : storable(value);
}

/** Whether `JSON.parse` alone parses `text` as `parseWellFormedJson` would: no escaped surrogate or U+0000, no lone surrogate. */
export function parsesStorable(text: string): boolean {
  return !SURROGATE_ESCAPE.test(text) && !text.includes(NUL_ESCAPE) && text.isWellFormed();
}

function storable(value: unknown): unknown {
  if (typeof value === 'string') return storableText(value);
  if (Array.isArray(value)) return value.map(storable);
  if (value === null || typeof value !== 'object') return value;
  const result: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) setProperty(result, storableText(key), storable(item));
  return result;
}

function storableText(text: string): string {
  return replaceNul(text.toWellFormed());
}
