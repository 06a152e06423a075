import { ValidationError } from '../errors.js';
import { readBoolean } from '../util/request-params.js';

/** Tags as PostHog stores them: trimmed, lower-case, each once, blanks dropped. */
export function readTags(value: unknown): string[] {
  if (!Array.isArray(value)) {
    throw new ValidationError('tags', `Expected a list of items but got type "${pythonTypeName(value)}".`, 'not_a_list');
  }
  const tags: string[] = [];
  for (const item of value) {
    if (typeof item !== 'string') throw new ValidationError('tags', 'Not a valid string.', 'invalid');
    const tag = item.trim().toLowerCase();
    if (tag !== '' && !tags.includes(tag)) tags.push(tag);
  }
  return tags;
}

export function readDescription(value: unknown): string | null {
  if (value === null || typeof value === 'string') return value;
  throw new ValidationError('description', 'Not a valid string.', 'invalid');
}

/** PATCH bodies take what DRF's BooleanField takes: JSON booleans, 1/0 and "true"/"false"-like strings. */
export function readBooleanField(value: unknown, attr: string): boolean {
  const parsed = value === null ? undefined : readBoolean(value, attr);
  if (parsed === undefined) throw new ValidationError(attr, 'Must be a valid boolean.', 'invalid');
  return parsed;
}

/** Python's names for JSON types, as DRF's messages use them. */
export function pythonTypeName(value: unknown): string {
  if (value === null) return 'NoneType';
  if (typeof value === 'string') return 'str';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  if (typeof value === 'boolean') return 'bool';
  return 'dict';
}
