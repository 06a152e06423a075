import type { ProjectClock } from '../../query/date-range.js';
import { combineAnd, type PropertyGroup } from '../../query/property-filter-model.js';
import type { ActorPage } from '../actors/actor-page.js';
import { readOrderBy, readSelect, type ActorOrder } from './actors-columns.js';
import { actorsSource, type ActorsSource } from './actors-sources.js';
import { invalid, isAbsent, isObject, nodeProperties, optionalInteger, optionalString } from './insight-node-fields.js';

/**
 * An ActorsQuery node (PostHog's query schema) as what Tally computes: the actors of a source's
 * data point (or every person of the project), the columns to answer, their order, the page, and
 * the person filters on top (`search`, `properties`, `fixedProperties`).
 */

export interface ActorsQueryPlan {
  source: ActorsSource;
  select: string[];
  /** Null: the source's own order (the legacy actors endpoint's). */
  orderBy: ActorOrder[] | null;
  page: ActorPage;
  /** Trimmed `search`, null when empty. */
  search: string | null;
  /** `properties` and `fixedProperties`, ANDed: person and cohort filters. */
  properties: PropertyGroup;
}

/** PostHog's actors page (`HogQLHasMorePaginator`); larger pages are clamped, as the legacy actors endpoints clamp them. */
const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;

const PERSON_FILTER_TYPES = new Set(['person', 'cohort', 'precalculated-cohort', 'static-cohort']);

/** Person filters only: an actors list filters persons, not their events. */
function checkPersonFilters(value: unknown, path: string): void {
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) checkPersonFilters(item, `${path}.${index}`);
    return;
  }
  if (!isObject(value)) return;
  if ((value.type === 'AND' || value.type === 'OR') && Array.isArray(value.values)) {
    for (const [index, item] of value.values.entries()) checkPersonFilters(item, `${path}.values.${index}`);
    return;
  }
  const type = value.type ?? 'event';
  if (typeof type !== 'string' || !PERSON_FILTER_TYPES.has(type)) {
    invalid(`${path}.type`, `An actors query filters persons: use person or cohort filters, not "${String(type)}".`);
  }
}

function personProperties(node: Record<string, unknown>, field: string, path: string): PropertyGroup {
  const at = `${path}.${field}`;
  const value = node[field];
  if (isAbsent(value)) return combineAnd();
  const group = nodeProperties(value, at);
  checkPersonFilters(value, at);
  return group;
}

function page(node: Record<string, unknown>, path: string): ActorPage {
  const limit = optionalInteger(node.limit, `${path}.limit`, 1) ?? DEFAULT_LIMIT;
  return { limit: Math.min(limit, MAX_LIMIT), offset: optionalInteger(node.offset, `${path}.offset`, 0) ?? 0 };
}

/** Translates the ActorsQuery at `path`; its source (when present) is at `<path>.source`. */
export function actorsQueryToPlan(node: unknown, path: string, clock: ProjectClock): ActorsQueryPlan {
  if (!isObject(node)) invalid(path, 'A query must be an object.');
  if (node.kind !== 'ActorsQuery') invalid(`${path}.kind`, 'Expected an ActorsQuery.');
  const source: ActorsSource = isAbsent(node.source) ? { kind: 'persons' } : actorsSource(node.source, `${path}.source`, clock);
  const select = readSelect(node.select, `${path}.select`, source.kind);
  const search = optionalString(node.search, `${path}.search`)?.trim() ?? '';
  return {
    source,
    select,
    orderBy: readOrderBy(node.orderBy, `${path}.orderBy`, source.kind, select),
    page: page(node, path),
    search: search === '' ? null : search,
    properties: combineAnd(personProperties(node, 'properties', path), personProperties(node, 'fixedProperties', path)),
  };
}

/**
 * An actors source sent as the query itself (PostHog runs it alone): answered as an ActorsQuery
 * of that source, with the default columns, order and page.
 */
export function actorsSourceToPlan(node: unknown, path: string, clock: ProjectClock): ActorsQueryPlan {
  const source = actorsSource(node, path, clock);
  const select = readSelect(undefined, `${path}.select`, source.kind);
  return { source, select, orderBy: null, page: { limit: DEFAULT_LIMIT, offset: 0 }, search: null, properties: combineAnd() };
}
