import { ValidationError } from '../errors.js';
import { type RawQuery, stringParam } from '../util/request-params.js';
import { replaceNul } from '../util/nul.js';

/** A JSON-encoded list of names (`["a","b"]`); absent or empty means none. */
export function jsonNameListParam(query: RawQuery, name: string): string[] {
  const text = stringParam(query, name);
  if (text === undefined || text.trim() === '') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ValidationError(name, 'Expected a JSON-encoded list of names.', 'invalid');
  }
  if (!Array.isArray(parsed) || parsed.some((item) => typeof item !== 'string' && typeof item !== 'number')) {
    throw new ValidationError(name, 'Expected a JSON-encoded list of names.', 'invalid');
  }
  return parsed.map((item) => replaceNul(String(item)));
}

/** Whitespace-separated search terms; a blank search is no search. */
export function searchTerms(query: RawQuery): string[] {
  return (stringParam(query, 'search') ?? '').split(/\s+/).filter((term) => term !== '');
}

export function invalidChoice(attr: string, value: string): ValidationError {
  return new ValidationError(attr, `"${value}" is not a valid choice.`, 'invalid_choice');
}
