import { ValidationError } from '../errors.js';
import { parseProperties } from '../query/property-filter-model.js';
import { textOf } from '../util/text.js';
import { STRING_MATCHINGS, type ActionStep, type StringMatching } from './action.js';
import { isJsonObject as isObject } from '../util/json.js';

/** A create or PATCH body as received: PostHog's fields, not yet judged. */
export interface ActionBody {
  name?: unknown;
  description?: unknown;
  steps?: unknown;
  deleted?: unknown;
}

/** The fields of a create or PATCH body, validated; absent fields stay undefined. */
export interface ActionInput {
  name?: string | null;
  description?: string;
  steps?: ActionStep[];
  deleted?: boolean;
}

function optionalText(value: unknown, attr: string): string | null {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string') throw new ValidationError(attr, 'Not a valid string.', 'invalid');
  return value;
}

function matching(value: unknown, attr: string, fallback: StringMatching | null): StringMatching | null {
  if (value === undefined || value === null) return fallback;
  if (!(STRING_MATCHINGS as readonly unknown[]).includes(value)) {
    throw new ValidationError(attr, `"${textOf(value)}" is not a valid choice.`, 'invalid_choice');
  }
  return value as StringMatching;
}

function parseStep(raw: unknown, index: number): ActionStep {
  const attr = `steps__${index}`;
  if (!isObject(raw)) throw new ValidationError(attr, 'Invalid data. Expected a dictionary.', 'invalid');
  const properties = raw.properties ?? [];
  // Parsing here makes malformed filters a 400 at write time rather than at query time.
  parseProperties(properties, `${attr}__properties`);
  const url = optionalText(raw.url, `${attr}__url`);
  const text = optionalText(raw.text, `${attr}__text`);
  const href = optionalText(raw.href, `${attr}__href`);
  return {
    event: optionalText(raw.event, `${attr}__event`),
    properties,
    url,
    // PostHog's default: a url without a matching is a substring match.
    url_matching: matching(raw.url_matching, `${attr}__url_matching`, url === null ? null : 'contains'),
    selector: optionalText(raw.selector, `${attr}__selector`),
    tag_name: optionalText(raw.tag_name, `${attr}__tag_name`),
    text,
    text_matching: matching(raw.text_matching, `${attr}__text_matching`, null),
    href,
    href_matching: matching(raw.href_matching, `${attr}__href_matching`, null),
  };
}

export function parseActionInput(body: ActionBody): ActionInput {
  const input: ActionInput = {};
  if (body.name !== undefined) {
    if (body.name !== null && typeof body.name !== 'string') throw new ValidationError('name', 'Not a valid string.', 'invalid');
    if (typeof body.name === 'string' && body.name.length > 400) {
      throw new ValidationError('name', 'Ensure this field has no more than 400 characters.', 'max_length');
    }
    input.name = body.name;
  }
  if (body.description !== undefined) {
    if (typeof body.description !== 'string') throw new ValidationError('description', 'Not a valid string.', 'invalid');
    input.description = body.description;
  }
  if (body.steps !== undefined && body.steps !== null) {
    if (!Array.isArray(body.steps)) throw new ValidationError('steps', 'Expected a list of items.', 'not_a_list');
    input.steps = body.steps.map(parseStep);
  }
  if (body.deleted !== undefined) {
    if (typeof body.deleted !== 'boolean') throw new ValidationError('deleted', 'Must be a valid boolean.', 'invalid');
    input.deleted = body.deleted;
  }
  return input;
}
