import { ValidationError } from '../errors.js';
import { replaceNul } from './nul.js';
import { textOf } from './text.js';

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

/*
 * Booleans of query parameters and body fields, read three ways from one list of words:
 * - insight filters as PostHog's `str_to_bool` reads them: any other value is false (`isTruthyFlag`);
 * - fields PostHog reads with DRF's BooleanField: any other value is a 400 (`readBoolean`);
 * - definition and event-list parameters, and definition fields, with only true/false/1/0, so a
 *   guess such as `yes` is a 400 naming the field rather than a silent reading (`readFlag`).
 */

/** The words `str_to_bool` and DRF read as true, and those DRF reads as false, in lower case. */
const TRUE_WORDS = ['y', 'yes', 't', 'true', 'on', '1'];
const FALSE_WORDS = ['n', 'no', 'f', 'false', 'off', '0'];

/** PostHog's `str_to_bool` for insight flags: JSON true, or a true word in any case around blanks. */
export function isTruthyFlag(value: unknown): boolean {
  if (value === true) return true;
  return typeof value === 'string' && TRUE_WORDS.includes(value.trim().toLowerCase());
}

/** Each word as DRF lists it: lower case, capitalised and upper case. */
function drfSpellings(words: readonly string[]): Set<string> {
  return new Set(words.flatMap((word) => [word, word[0]!.toUpperCase() + word.slice(1), word.toUpperCase()]));
}

const DRF_TRUE = drfSpellings(TRUE_WORDS);
const DRF_FALSE = drfSpellings(FALSE_WORDS);

/** A boolean the way DRF's BooleanField reads one; absent or empty is undefined. */
export function readBoolean(value: unknown, attr: string): boolean | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'boolean') return value;
  const text = textOf(value);
  if (DRF_TRUE.has(text)) return true;
  if (DRF_FALSE.has(text)) return false;
  throw new ValidationError(attr, 'Must be a valid boolean.', 'invalid');
}

const FLAG_VALUES = new Map<string, boolean>([
  ['true', true],
  ['1', true],
  ['false', false],
  ['0', false],
]);

/** A flag written as `true`, `false` (any case), `1` or `0`, or a JSON boolean; absent or empty is undefined. */
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
