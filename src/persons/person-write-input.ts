import { RequiredFieldError, ValidationError } from '../errors.js';
import { readBoolean, stringParam, type RawQuery } from '../util/request-params.js';

/**
 * Request inputs of the person writes, read the way DRF fields read them. A body is an object
 * or absent, its fields any JSON, judged here so that the 400s name them as PostHog does; a
 * query parameter is text, or a list when it is repeated (the last value counts).
 */

export type PropertiesPatchBody = {
  properties?: unknown;
};

export type PropertyUpdateBody = {
  key?: unknown;
  value?: unknown;
};

export type PropertyUpdateQuery = {
  key?: string | string[];
  value?: string | string[];
};

export type PropertyUnsetBody = {
  $unset?: unknown;
};

export type PropertyUnsetQuery = {
  $unset?: string | string[];
};

export type SplitBody = {
  main_distinct_id?: unknown;
  distinct_ids_to_split?: unknown;
};

export type DeleteQuery = {
  delete_events?: string | string[];
};

function pythonTypeName(value: unknown): string {
  if (value === null) return 'NoneType';
  if (Array.isArray(value)) return 'list';
  if (typeof value === 'string') return 'str';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  return 'dict';
}

/** A CharField: text or a number (as text), never blank. */
function readText(value: unknown, attr: string): string {
  if (typeof value !== 'string' && typeof value !== 'number') throw new ValidationError(attr, 'Not a valid string.', 'invalid');
  const text = String(value);
  if (text === '') throw new ValidationError(attr, 'This field may not be blank.', 'blank');
  return text;
}

/** A field from the JSON body, else from the query string. */
function bodyOrQuery(fromBody: unknown, query: RawQuery, name: string): unknown {
  return fromBody !== undefined ? fromBody : stringParam(query, name);
}

/** PATCH `{"properties": {...}}`: the keys to set. */
export function readPropertiesPatch(body: PropertiesPatchBody | null): Record<string, unknown> {
  const properties = body?.properties;
  if (properties === undefined || properties === null) throw new RequiredFieldError('properties');
  if (typeof properties !== 'object' || Array.isArray(properties)) {
    throw new ValidationError('properties', `Expected a dictionary of items but got type "${pythonTypeName(properties)}".`, 'not_a_dict');
  }
  return properties as Record<string, unknown>;
}

/** update_property: `key` and `value` (which may be null); the value is checked first, as PostHog does. */
export function readPropertyUpdate(body: PropertyUpdateBody | null, query: PropertyUpdateQuery): { key: string; value: unknown } {
  const value = bodyOrQuery(body?.value, query, 'value');
  if (value === undefined) throw new RequiredFieldError('value');
  const key = bodyOrQuery(body?.key, query, 'key');
  if (key === undefined || key === null) throw new RequiredFieldError('key');
  return { key: readText(key, 'key'), value };
}

/** delete_property: the key in `$unset`. */
export function readUnsetKey(body: PropertyUnsetBody | null, query: PropertyUnsetQuery): string {
  const key = bodyOrQuery(body?.$unset, query, '$unset');
  if (key === undefined || key === null) throw new RequiredFieldError('$unset');
  return readText(key, '$unset');
}

/** Which distinct ids a split moves off the person. */
export type SplitRequest = { kind: 'keep'; mainDistinctId: string | null } | { kind: 'move'; distinctIds: string[] };

export function readSplitRequest(body: SplitBody | null): SplitRequest {
  const main = body?.main_distinct_id;
  const toSplit = body?.distinct_ids_to_split;
  const hasMain = main !== undefined && main !== null && main !== '';
  if (toSplit !== undefined && toSplit !== null) {
    if (hasMain) {
      throw new ValidationError(null, 'Send either main_distinct_id or distinct_ids_to_split, not both.');
    }
    if (!Array.isArray(toSplit) || toSplit.length === 0 || toSplit.some((item) => typeof item !== 'string')) {
      throw new ValidationError('distinct_ids_to_split', 'Expected a non-empty list of distinct ids.');
    }
    return { kind: 'move', distinctIds: [...new Set(toSplit as string[])] };
  }
  return { kind: 'keep', mainDistinctId: hasMain ? readText(main, 'main_distinct_id') : null };
}

/** DELETE's `delete_events`: true/1 queue an event deletion; false/0/absent do not. */
export function readDeleteEvents(query: DeleteQuery): boolean {
  return readBoolean(stringParam(query, 'delete_events'), 'delete_events') ?? false;
}
