import { ValidationError } from '../errors.js';
import { isJsonObject } from '../util/json.js';
import { integerOrNull } from '../util/safe-integer.js';

/**
 * Property filters as every query takes them (PostHog's legacy property dicts and groups): event,
 * person, group, cohort, element and session properties, nested AND/OR groups. Raw JSON and
 * JSON-encoded query strings become typed filters here; bad input is a ValidationError naming
 * the field.
 */

export const PROPERTY_OPERATORS = [
  'exact',
  'is_not',
  'icontains',
  'not_icontains',
  'regex',
  'not_regex',
  'gt',
  'gte',
  'lt',
  'lte',
  'is_set',
  'is_not_set',
  'is_date_exact',
  'is_date_after',
  'is_date_before',
] as const;
export type PropertyOperator = (typeof PROPERTY_OPERATORS)[number];

export type PropertyFilterType = 'event' | 'person' | 'group' | 'cohort' | 'element' | 'session';

export interface PropertyFilter {
  kind: 'filter';
  type: PropertyFilterType;
  key: string;
  /** As sent: a scalar or a list (exact/is_not match any element). Null for is_set / is_not_set. */
  value: unknown;
  operator: PropertyOperator;
  /** Group type of `type: "group"` filters. */
  groupTypeIndex: number | null;
  negation: boolean;
}

export interface PropertyGroup {
  kind: 'group';
  type: 'AND' | 'OR';
  values: PropertyNode[];
}

export type PropertyNode = PropertyFilter | PropertyGroup;

export const EMPTY_PROPERTY_GROUP: PropertyGroup = { kind: 'group', type: 'AND', values: [] };

/** Query-string values arrive JSON-encoded; bodies carry them as JSON already. */
export function decodeJsonParam(value: unknown, attr: string, detail = `Invalid JSON in "${attr}".`): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    throw new ValidationError(attr, detail);
  }
}

const PROPERTY_TYPES: Record<string, PropertyFilterType> = {
  event: 'event',
  person: 'person',
  group: 'group',
  cohort: 'cohort',
  'precalculated-cohort': 'cohort',
  'static-cohort': 'cohort',
  element: 'element',
  session: 'session',
};

const VALUELESS_OPERATORS = new Set<PropertyOperator>(['is_set', 'is_not_set']);

function parseOperator(value: unknown): PropertyOperator {
  // Legacy semantics: unknown operators (`in`, `between`, …) match exactly.
  return (PROPERTY_OPERATORS as readonly unknown[]).includes(value) ? (value as PropertyOperator) : 'exact';
}

/** One property dict, or null when PostHog would silently drop it (missing key/value, unknown type). */
function parsePropertyFilter(raw: Record<string, unknown>, attr: string): PropertyFilter | null {
  const rawType = raw.type ?? 'event';
  if (rawType === 'hogql') throw new ValidationError(attr, 'HogQL property filters are not supported.');
  const type = typeof rawType === 'string' ? PROPERTY_TYPES[rawType] : undefined;
  if (!type) return null;
  const key = raw.key;
  if ((typeof key !== 'string' || key === '') && typeof key !== 'number') return null;
  const operator = parseOperator(raw.operator);
  if (raw.value === undefined && !VALUELESS_OPERATORS.has(operator)) return null;
  let index: number | null = null;
  if (type === 'group') {
    index = integerOrNull(raw.group_type_index);
    if (index === null || index < 0 || index > 4) return null;
  }
  return {
    kind: 'filter',
    type,
    key: String(key),
    value: raw.value ?? null,
    operator,
    groupTypeIndex: index,
    negation: raw.negation === true,
  };
}

/** `{"$browser__icontains": "Chr"}`: PostHog's oldest property shape. */
function parseLegacyPropertyDict(raw: Record<string, unknown>): PropertyFilter[] {
  return Object.entries(raw).map(([compound, value]) => {
    const separator = compound.lastIndexOf('__');
    const operator = separator > 0 ? parseOperator(compound.slice(separator + 2)) : 'exact';
    const key = separator > 0 && operator !== 'exact' ? compound.slice(0, separator) : compound;
    return { kind: 'filter', type: 'event', key, value, operator, groupTypeIndex: null, negation: false };
  });
}

function parsePropertyList(items: unknown[], attr: string, type: 'AND' | 'OR'): PropertyGroup {
  const groups = items.filter((item) => isJsonObject(item) && isGroupShape(item));
  if (groups.length > 0 && groups.length !== items.length) {
    throw new ValidationError(attr, 'Property list cannot contain both PropertyGroup and Property objects');
  }
  const values: PropertyNode[] = [];
  for (const item of items) {
    if (!isJsonObject(item)) continue;
    if (isGroupShape(item)) values.push(parsePropertyGroupObject(item, attr));
    else {
      const filter = parsePropertyFilter(item, attr);
      if (filter) values.push(filter);
    }
  }
  return { kind: 'group', type, values };
}

function isGroupShape(item: Record<string, unknown>): boolean {
  return (item.type === 'AND' || item.type === 'OR') && Array.isArray(item.values);
}

function parsePropertyGroupObject(raw: Record<string, unknown>, attr: string): PropertyGroup {
  return parsePropertyList(raw.values as unknown[], attr, raw.type === 'OR' ? 'OR' : 'AND');
}

/**
 * Property filters in any shape PostHog accepts: a list (AND), a group `{type, values}` (nested
 * groups allowed), an old-style `{key__operator: value}` dict, or any of these JSON-encoded.
 */
export function parseProperties(input: unknown, attr = 'properties'): PropertyGroup {
  const decoded = decodeJsonParam(input, attr, 'Properties are unparsable!');
  if (decoded === undefined || decoded === null || decoded === '') return EMPTY_PROPERTY_GROUP;
  if (Array.isArray(decoded)) return parsePropertyList(decoded, attr, 'AND');
  if (isJsonObject(decoded)) {
    if (isGroupShape(decoded)) return parsePropertyGroupObject(decoded, attr);
    if (Object.keys(decoded).length === 0) return EMPTY_PROPERTY_GROUP;
    return { kind: 'group', type: 'AND', values: parseLegacyPropertyDict(decoded) };
  }
  throw new ValidationError(attr, 'Properties are unparsable!');
}

/** ANDs groups, dropping empty ones, so an absent filter adds nothing to SQL. */
export function combineAnd(...groups: PropertyGroup[]): PropertyGroup {
  const present = groups.filter((group) => group.values.length > 0);
  if (present.length === 0) return EMPTY_PROPERTY_GROUP;
  if (present.length === 1) return present[0]!;
  return { kind: 'group', type: 'AND', values: present };
}

/** Every filter in a group, however deeply nested. */
export function flattenFilters(node: PropertyNode): PropertyFilter[] {
  return node.kind === 'filter' ? [node] : node.values.flatMap(flattenFilters);
}
