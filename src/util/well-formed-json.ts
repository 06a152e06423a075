import { setProperty } from './merge-properties.js';

/** A `\u` escape of a UTF-16 surrogate (D800–DFFF), the way JSON text names a lone one. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/**
 * Parses JSON text, replacing every lone UTF-16 surrogate in its keys and strings with U+FFFD,
 * as PostHog's capture does before it deserialises a payload. A lone surrogate has no UTF-8 form:
 * kept, it would fail the person UUID hash and the warehouse's JSON parser far behind the
 * acknowledgement, and stop the processing of every event after it.
 *
 * Only text that can yield one is walked: text with a surrogate escape (valid pairs included:
 * some encoders escape every non-ASCII character), or text holding a raw surrogate (lz-string
 * decodes to any UTF-16). UTF-8 decoding never produces one.
 */
export function parseWellFormedJson(text: string): unknown {
  const value: unknown = JSON.parse(text);
  return SURROGATE_ESCAPE.test(text) || !text.isWellFormed() ? wellFormed(value) : value;
}

function wellFormed(value: unknown): unknown {
  if (typeof value === 'string') return value.toWellFormed();
  if (Array.isArray(value)) return value.map(wellFormed);
  if (value === null || typeof value !== 'object') return value;
  const result: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) setProperty(result, key.toWellFormed(), wellFormed(item));
  return result;
}
