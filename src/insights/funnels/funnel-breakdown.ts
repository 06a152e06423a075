import { ValidationError } from '../../errors.js';
import { isJsonObject } from '../../util/json.js';
import { integerOrNull } from '../../util/safe-integer.js';
import { textOf } from '../../util/text.js';
import type { RawInput } from '../filter-model.js';

/**
 * A funnel's breakdown as PostHog's legacy funnels read it: one or more event or person
 * properties (a single property is boxed into a list, so values are lists too), one group
 * property (values stay strings), or cohorts (values are cohort ids, 0 for all users).
 */
export type FunnelBreakdown =
  | { type: 'event' | 'person'; properties: string[]; limit: number }
  | { type: 'group'; properties: [string]; groupTypeIndex: number; limit: number }
  | { type: 'cohort'; cohorts: number[] };

/** PostHog's `breakdown_limit` default for funnels. */
export const DEFAULT_BREAKDOWN_LIMIT = 25;

/** The cohort id PostHog gives `"all"`: every actor. */
export const ALL_USERS_COHORT = 0;

const ATTR = 'breakdown';

function decoded(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  // As PostHog: a JSON-looking value is decoded (`["$browser"]`, `[1, 2]`), anything else is a property name.
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

function breakdownLimit(input: RawInput): number {
  const raw = input.breakdown_limit;
  if (raw === undefined || raw === null || raw === '') return DEFAULT_BREAKDOWN_LIMIT;
  const limit = integerOrNull(raw);
  if (limit === null || limit < 1) throw new ValidationError('breakdown_limit', 'breakdown_limit must be a positive integer.');
  return limit;
}

function cohortIds(value: unknown): number[] {
  const items = Array.isArray(value) ? value : [value];
  if (items.length === 0) throw new ValidationError(ATTR, 'A cohort breakdown takes cohort ids or "all".');
  return items.map((item) => {
    if (item === 'all') return ALL_USERS_COHORT;
    const id = integerOrNull(item);
    if (id === null || id < 0) throw new ValidationError(ATTR, 'A cohort breakdown takes cohort ids or "all".');
    return id;
  });
}

function propertyNames(value: unknown): string[] {
  const items = Array.isArray(value) ? value : [value];
  if (items.length === 0 || !items.every((item) => typeof item === 'string' && item !== '')) {
    throw new ValidationError(ATTR, 'A property breakdown takes a property name or a list of property names.');
  }
  return items as string[];
}

/** The legacy multi-property form: `breakdowns: [{property, type}]`. */
function fromBreakdowns(value: unknown): { properties: string[]; type: string | null } | null {
  const list = decoded(value);
  if (list === undefined || list === null || list === '') return null;
  if (!Array.isArray(list) || list.length === 0) throw new ValidationError('breakdowns', '"breakdowns" must be a list of {property, type}.');
  const properties: string[] = [];
  let type: string | null = null;
  for (const item of list) {
    if (!isJsonObject(item) || typeof item.property !== 'string' || item.property === '') {
      throw new ValidationError('breakdowns', '"breakdowns" must be a list of {property, type}.');
    }
    properties.push(item.property);
    if (typeof item.type === 'string') type = item.type;
  }
  return { properties, type };
}

function groupTypeIndex(value: unknown): number {
  const index = integerOrNull(value);
  if (index === null || index < 0 || index > 4) {
    throw new ValidationError('breakdown_group_type_index', 'A group breakdown needs breakdown_group_type_index between 0 and 4.', 'required');
  }
  return index;
}

/** `breakdown` (or `breakdowns`) with `breakdown_type` (default `event`); null when there is none. */
export function parseFunnelBreakdown(input: RawInput): FunnelBreakdown | null {
  const multi = fromBreakdowns(input.breakdowns);
  const raw = multi ? multi.properties : decoded(input.breakdown);
  if (raw === undefined || raw === null || raw === '' || (Array.isArray(raw) && raw.length === 0)) return null;
  const typeText =
    input.breakdown_type === undefined || input.breakdown_type === null || input.breakdown_type === ''
      ? (multi?.type ?? 'event')
      : textOf(input.breakdown_type);
  switch (typeText) {
    case 'cohort':
      return { type: 'cohort', cohorts: cohortIds(raw) };
    case 'event':
    case 'person':
      // A bare number is a property name here, as in `breakdown=42` of a query string.
      return { type: typeText, properties: propertyNames(typeof raw === 'number' ? String(raw) : raw), limit: breakdownLimit(input) };
    case 'group': {
      const [property, ...rest] = propertyNames(typeof raw === 'number' ? String(raw) : raw);
      if (rest.length > 0) throw new ValidationError(ATTR, 'A group breakdown takes one property.');
      return { type: 'group', properties: [property!], groupTypeIndex: groupTypeIndex(input.breakdown_group_type_index), limit: breakdownLimit(input) };
    }
    case 'hogql':
      throw new ValidationError('breakdown_type', 'HogQL breakdowns are not supported.');
    default:
      throw new ValidationError('breakdown_type', `Breakdown type "${typeText}" is not one of event, person, group, cohort.`);
  }
}
