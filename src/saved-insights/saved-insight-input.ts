import { ValidationError } from '../errors.js';
import { parseInsightQuery } from './insight-query-node.js';
import type { JsonObject } from './saved-insight.js';
import { isJsonObject as isObject } from '../util/json.js';

/** The writable fields of a create or PATCH body, validated; absent fields stay undefined. */
export interface SavedInsightInput {
  name?: string | null;
  derivedName?: string | null;
  description?: string;
  query?: JsonObject | null;
  filters?: JsonObject;
  tags?: string[];
  favorited?: boolean;
  saved?: boolean;
  deleted?: boolean;
  dashboards?: number[];
}

const MAX_TEXT = 400;

function limitedText(value: unknown, attr: string, nullable: boolean): string | null {
  if (value === null && nullable) return null;
  if (typeof value !== 'string') throw new ValidationError(attr, 'Not a valid string.', 'invalid');
  if (value.length > MAX_TEXT) {
    throw new ValidationError(attr, `Ensure this field has no more than ${MAX_TEXT} characters.`, 'max_length');
  }
  return value;
}

function booleanField(value: unknown, attr: string): boolean {
  if (typeof value !== 'boolean') throw new ValidationError(attr, 'Must be a valid boolean.', 'invalid');
  return value;
}

/** Tags are strings; repeats are dropped, first occurrence kept. */
export function parseTags(value: unknown): string[] {
  if (!Array.isArray(value)) throw new ValidationError('tags', 'Expected a list of items.', 'not_a_list');
  for (const tag of value) {
    if (typeof tag !== 'string') throw new ValidationError('tags', 'Not a valid string.', 'invalid');
  }
  return [...new Set(value as string[])];
}

/** A list of integer ids, as `dashboards` takes. */
export function parseIdList(value: unknown, attr: string): number[] {
  if (!Array.isArray(value)) throw new ValidationError(attr, 'Expected a list of items.', 'not_a_list');
  return value.map((item) => {
    if (typeof item !== 'number' || !Number.isSafeInteger(item)) {
      throw new ValidationError(attr, `Incorrect type. Expected pk value, received ${typeof item}.`, 'incorrect_type');
    }
    return item;
  });
}

export function parseSavedInsightInput(body: unknown, options: { mcp: boolean; creating: boolean }): SavedInsightInput {
  if (!isObject(body)) throw new ValidationError(null, 'Invalid data. Expected a dictionary.', 'invalid');
  const input: SavedInsightInput = {};
  if (body.name !== undefined) input.name = limitedText(body.name, 'name', true);
  if (body.derived_name !== undefined) input.derivedName = limitedText(body.derived_name, 'derived_name', true);
  if (body.description !== undefined) input.description = limitedText(body.description, 'description', true) ?? '';
  if (body.query !== undefined) input.query = parseInsightQuery(body.query, options.mcp);
  else if (options.mcp && options.creating) throw new ValidationError('query', 'This field is required.', 'required');
  if (body.filters !== undefined) {
    if (body.filters !== null && !isObject(body.filters)) throw new ValidationError('filters', 'Filters must be a JSON object.', 'invalid');
    input.filters = body.filters ?? {};
  }
  if (body.tags !== undefined) input.tags = body.tags === null ? [] : parseTags(body.tags);
  if (body.favorited !== undefined) input.favorited = booleanField(body.favorited, 'favorited');
  if (body.saved !== undefined) input.saved = booleanField(body.saved, 'saved');
  if (body.deleted !== undefined) input.deleted = booleanField(body.deleted, 'deleted');
  if (body.dashboards !== undefined) input.dashboards = body.dashboards === null ? [] : parseIdList(body.dashboards, 'dashboards');
  return input;
}
