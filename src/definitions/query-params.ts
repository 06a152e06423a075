import { ValidationError } from '../errors.js';
import { replaceNul } from '../util/nul.js';
import { textOf } from '../util/text.js';

/** A raw query string as Fastify parses it: repeated keys become arrays. */
export type RawQuery = Record<string, unknown>;

function values(query: RawQuery, name: string): string[] {
  const raw = query[name];
  if (raw === undefined || raw === null) return [];
  // Names are stored with U+FFFD for U+0000, so that is what a parameter names too.
  return (Array.isArray(raw) ? raw : [raw]).map((value) => replaceNul(String(value)));
}

/** The last value of a parameter, as Django's `QueryDict.get` reads it. */
export function stringParam(query: RawQuery, name: string): string | undefined {
  const all = values(query, name);
  return all[all.length - 1];
}

/** Every value of a parameter given repeatedly and/or comma-separated; blanks dropped. */
export function commaListParam(query: RawQuery, name: string): string[] {
  return values(query, name)
    .flatMap((value) => value.split(','))
    .map((value) => value.trim())
    .filter((value) => value !== '');
}

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

const TRUE_VALUES = new Set(['true', 'True', 'TRUE', '1', 'on', 'On', 'ON', 'yes', 'Yes', 'YES', 'y', 'Y', 't', 'T']);
const FALSE_VALUES = new Set(['false', 'False', 'FALSE', '0', 'off', 'Off', 'OFF', 'no', 'No', 'NO', 'n', 'N', 'f', 'F']);

/** A boolean the way DRF's BooleanField reads one; absent or empty is undefined. */
export function readBoolean(value: unknown, attr: string): boolean | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'boolean') return value;
  const text = textOf(value);
  if (TRUE_VALUES.has(text)) return true;
  if (FALSE_VALUES.has(text)) return false;
  throw new ValidationError(attr, 'Must be a valid boolean.', 'invalid');
}

export function booleanParam(query: RawQuery, name: string): boolean | undefined {
  return readBoolean(stringParam(query, name), name);
}

const FLAG_VALUES = new Map<string, boolean>([
  ['true', true],
  ['1', true],
  ['false', false],
  ['0', false],
]);

/**
 * A flag written as `true`, `false` (any case), `1` or `0`, or a JSON boolean; absent or empty is
 * undefined. Stricter than DRF: `yes` or `on` is a 400 naming the field, not a silent guess.
 */
export function readFlag(value: unknown, attr: string): boolean | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'boolean') return value;
  const flag = typeof value === 'string' || typeof value === 'number' ? FLAG_VALUES.get(String(value).toLowerCase()) : undefined;
  if (flag === undefined) throw new ValidationError(attr, 'Must be a valid boolean.', 'invalid');
  return flag;
}

export function flagParam(query: RawQuery, name: string): boolean | undefined {
  return readFlag(stringParam(query, name), name);
}

/** Whitespace-separated search terms; a blank search is no search. */
export function searchTerms(query: RawQuery): string[] {
  return (stringParam(query, 'search') ?? '').split(/\s+/).filter((term) => term !== '');
}

export function invalidChoice(attr: string, value: string): ValidationError {
  return new ValidationError(attr, `"${value}" is not a valid choice.`, 'invalid_choice');
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}
