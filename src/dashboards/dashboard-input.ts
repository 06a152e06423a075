import { ValidationError } from '../errors.js';
import { parseTags } from '../saved-insights/saved-insight-input.js';
import type { JsonObject } from './dashboard.js';
import { isJsonObject as isObject } from '../util/json.js';

/** One entry of `tiles` in a dashboard PATCH: a new text tile (no id) or a change to a tile. */
export interface TileInput {
  id: number | null;
  deleted?: boolean;
  color?: string | null;
  layouts?: JsonObject;
  /** A text tile's body; absent leaves it as it is. */
  textBody?: string | null;
}

/** The writable fields of a create or PATCH body, validated; absent fields stay undefined. */
export interface DashboardInput {
  name?: string | null;
  description?: string;
  pinned?: boolean;
  tags?: string[];
  filters?: JsonObject;
  variables?: JsonObject;
  deleted?: boolean;
  tiles?: TileInput[];
}

/** The one restriction level Tally has: everyone in the project can edit. */
const EVERYONE_CAN_EDIT = 21;
const MAX_NAME = 400;
const MAX_TEXT_BODY = 4000;

function text(value: unknown, attr: string, max: number): string | null {
  if (value === null) return null;
  if (typeof value !== 'string') throw new ValidationError(attr, 'Not a valid string.', 'invalid');
  if (value.length > max) throw new ValidationError(attr, `Ensure this field has no more than ${max} characters.`, 'max_length');
  return value;
}

function objectField(value: unknown, attr: string): JsonObject {
  if (value === null) return {};
  if (!isObject(value)) throw new ValidationError(attr, `"${attr}" must be an object.`, 'invalid');
  return value;
}

function booleanField(value: unknown, attr: string): boolean {
  if (typeof value !== 'boolean') throw new ValidationError(attr, 'Must be a valid boolean.', 'invalid');
  return value;
}

function parseTile(raw: unknown): TileInput {
  if (!isObject(raw)) throw new ValidationError('tiles', 'Each tile must be an object.', 'invalid');
  let id: number | null = null;
  if (raw.id !== undefined && raw.id !== null) {
    if (typeof raw.id !== 'number' || !Number.isSafeInteger(raw.id)) throw new ValidationError('tiles', 'A tile id must be an integer.', 'invalid');
    id = raw.id;
  }
  const tile: TileInput = { id };
  if (raw.deleted !== undefined) tile.deleted = booleanField(raw.deleted, 'tiles');
  if (raw.color !== undefined) tile.color = text(raw.color, 'tiles', MAX_NAME);
  if (raw.layouts !== undefined) tile.layouts = objectField(raw.layouts, 'tiles');
  if (raw.text !== undefined && raw.text !== null) {
    if (!isObject(raw.text)) throw new ValidationError('tiles', 'A tile text must be an object with a body.', 'invalid');
    tile.textBody = raw.text.body === undefined ? null : text(raw.text.body, 'tiles', MAX_TEXT_BODY);
  }
  if (id === null && tile.textBody === undefined) {
    throw new ValidationError('tiles', "A new tile needs a text: insights are put on a dashboard through the insight's dashboards.", 'invalid');
  }
  return tile;
}

export function parseDashboardInput(body: unknown): DashboardInput {
  if (!isObject(body)) throw new ValidationError(null, 'Invalid data. Expected a dictionary.', 'invalid');
  for (const field of ['use_template', 'use_dashboard'] as const) {
    const value = body[field];
    if (value !== undefined && value !== null && value !== '') {
      throw new ValidationError(field, `Tally cannot create a dashboard from ${field === 'use_template' ? 'a template' : 'another dashboard'} yet.`);
    }
  }
  if (body.restriction_level !== undefined && body.restriction_level !== EVERYONE_CAN_EDIT) {
    throw new ValidationError('restriction_level', `Tally has no access control: the restriction level is always ${EVERYONE_CAN_EDIT}.`);
  }
  const input: DashboardInput = {};
  if (body.name !== undefined) input.name = text(body.name, 'name', MAX_NAME);
  if (body.description !== undefined) input.description = (body.description === null ? null : text(body.description, 'description', Infinity)) ?? '';
  if (body.pinned !== undefined) input.pinned = booleanField(body.pinned, 'pinned');
  if (body.tags !== undefined) input.tags = body.tags === null ? [] : parseTags(body.tags);
  if (body.filters !== undefined) input.filters = objectField(body.filters, 'filters');
  if (body.variables !== undefined) input.variables = objectField(body.variables, 'variables');
  if (body.deleted !== undefined) input.deleted = booleanField(body.deleted, 'deleted');
  if (body.tiles !== undefined && body.tiles !== null) {
    if (!Array.isArray(body.tiles)) throw new ValidationError('tiles', 'Expected a list of items.', 'not_a_list');
    input.tiles = body.tiles.map(parseTile);
  }
  return input;
}
