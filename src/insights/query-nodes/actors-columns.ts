import type { ApiPerson } from '../../persons/person-serializer.js';
import type { ActorSortItem, ActorSortKey } from '../actors/actor-page.js';
import { invalid, isAbsent } from './insight-node-fields.js';

/**
 * The columns of an ActorsQuery (PostHog's `select`): the person and its fields, and what the
 * source knows per actor (a trend's event count, a retention row's appearances). Each column has
 * the ClickHouse type PostHog's response names, and what the warehouse orders it by.
 */

/** Which source lists the actors, as far as its columns differ. */
export type ActorsSourceKind = 'persons' | 'trends' | 'lifecycle' | 'stickiness' | 'retention' | 'paths' | 'funnels' | 'correlation';

/** One actor of the answer: the contract's Person and the source's own values (`event_count`, `appearances`, …). */
export interface ActorRow {
  person: ApiPerson;
  values: Readonly<Record<string, unknown>>;
}

const PERSON_COLUMNS: Readonly<Record<string, string>> = {
  person: 'UUID',
  id: 'UUID',
  created_at: "DateTime64(3, 'UTC')",
  'person.$delete': 'UInt8',
};

const RECORDINGS_TYPE = "Array(Tuple(DateTime64(6, 'UTC'), UUID, String, String))";

const SOURCE_COLUMNS: Readonly<Record<ActorsSourceKind, Readonly<Record<string, string>>>> = {
  persons: {},
  trends: { event_count: 'UInt64', event_distinct_ids: 'Array(String)' },
  lifecycle: {},
  stickiness: {},
  retention: { appearances: 'Array(UInt16)' },
  paths: {},
  funnels: { matched_recordings: RECORDINGS_TYPE },
  correlation: { matched_recordings: RECORDINGS_TYPE },
};

/** Expressions PostHog's own clients order by, beside the columns themselves. */
const ORDER_ALIASES: Readonly<Record<string, string>> = {
  actor_id: 'id',
  'length(appearances)': 'appearances_count',
  appearances_count: 'appearances_count',
};

/** The columns a source answers, in order, with their types. */
export function columnTypes(kind: ActorsSourceKind): Readonly<Record<string, string>> {
  return { ...PERSON_COLUMNS, ...SOURCE_COLUMNS[kind] };
}

/** PostHog's default `select`: the person, its id and the delete marker, and for trends the distinct ids that did the events. */
export function defaultSelect(kind: ActorsSourceKind): string[] {
  return kind === 'trends' ? ['person', 'id', 'person.$delete', 'event_distinct_ids'] : ['person', 'id', 'person.$delete'];
}

/** `select`: a list of the source's columns; anything else is a 400 naming its index. */
export function readSelect(value: unknown, path: string, kind: ActorsSourceKind): string[] {
  if (isAbsent(value)) return defaultSelect(kind);
  if (!Array.isArray(value)) invalid(path, 'Must be a list of column names.');
  if (value.length === 0) return defaultSelect(kind);
  const known = columnTypes(kind);
  return value.map((column, index) => {
    if (typeof column !== 'string') invalid(`${path}.${index}`, 'Must be a string.');
    const name = column.trim();
    if (!Object.hasOwn(known, name)) invalid(`${path}.${index}`, `Unknown column "${column}": Tally answers ${Object.keys(known).join(', ')}.`);
    return name;
  });
}

export interface ActorOrder {
  /** A column of the source, or `person.properties.<key>`. */
  column: string;
  /** The key of the person property the column names, if it names one. */
  property?: string;
  descending: boolean;
}

const PERSON_PROPERTY = 'person.properties.';

/**
 * One `orderBy` item: a column, or a person property (`person.properties.<key>` or
 * `properties.<key>`, the key in backticks or double quotes when it has spaces), then an
 * optional ASC or DESC.
 */
const ORDER_ITEM = /^\s*(?:(?:person\.)?properties\.(?:`([^`]+)`|"([^"]+)"|([^\s`"]+))|(\S+?))(?:\s+(asc|desc))?\s*$/i;

/**
 * `orderBy`: `"<column> [ASC|DESC]"` over the source's columns and the person's properties. Null
 * when absent: the default is `created_at DESC` when selected, else the source's own order (null again).
 */
export function readOrderBy(value: unknown, path: string, kind: ActorsSourceKind, select: readonly string[]): ActorOrder[] | null {
  if (isAbsent(value) || (Array.isArray(value) && value.length === 0)) {
    return select.includes('created_at') ? [{ column: 'created_at', descending: true }] : null;
  }
  if (!Array.isArray(value)) invalid(path, 'Must be a list of "<column> [ASC|DESC]".');
  const known = columnTypes(kind);
  return value.map((item, index) => {
    if (typeof item !== 'string') invalid(`${path}.${index}`, 'Must be a string.');
    const match = ORDER_ITEM.exec(item);
    const descending = (match?.[5] ?? 'ASC').toUpperCase() === 'DESC';
    const property = match?.[1] ?? match?.[2] ?? match?.[3];
    if (property !== undefined) return { column: `${PERSON_PROPERTY}${property}`, property, descending };
    const name = match?.[4] ?? '';
    const column = ORDER_ALIASES[name] ?? name;
    const allowed = column === 'appearances_count' ? Object.hasOwn(known, 'appearances') : Object.hasOwn(known, column);
    if (!allowed) {
      invalid(
        `${path}.${index}`,
        `Cannot order by "${item}": use one of ${Object.keys(known).join(', ')} or ${PERSON_PROPERTY}<key>, optionally followed by ASC or DESC.`,
      );
    }
    return { column, descending };
  });
}

/** True when `order` is the order the source lists its actors in anyway: newest person first. */
export function isNewestFirst(order: readonly ActorOrder[]): boolean {
  return order.length === 1 && order[0]!.column === 'created_at' && order[0]!.descending;
}

/** The actors services' names for the per-actor values of the source columns (see the trend and retention actors SQL). */
const SOURCE_VALUES: Readonly<Record<string, string>> = {
  event_count: 'value',
  event_distinct_ids: 'distinct_ids',
  appearances: 'appearance_intervals',
  appearances_count: 'appearance_count',
};

/** What a column orders by in the actors services' terms; null for a column every actor has the same value of. */
function sortKey(order: ActorOrder, propertyColumns: ReadonlyMap<string, string>): ActorSortKey | null {
  if (order.property !== undefined) return { kind: 'property', key: order.property, column: propertyColumns.get(order.property) ?? null };
  switch (order.column) {
    case 'person':
    case 'id':
      return { kind: 'actor' };
    case 'created_at':
      return { kind: 'created_at' };
    case 'person.$delete':
    case 'matched_recordings':
      return null;
    default:
      return { kind: 'value', name: SOURCE_VALUES[order.column]! };
  }
}

/**
 * `orderBy` as the order the actors services sort their page in, the warehouse computing it;
 * `propertyColumns` are the materialized columns of the ordered properties (key → column).
 */
export function actorSort(order: readonly ActorOrder[], propertyColumns: ReadonlyMap<string, string>): ActorSortItem[] {
  return order.flatMap((item) => {
    const key = sortKey(item, propertyColumns);
    return key === null ? [] : [{ key, descending: item.descending }];
  });
}

/** The value of `column` for one actor, as the answer's row holds it. */
export function columnValue(row: ActorRow, column: string): unknown {
  const { person } = row;
  switch (column) {
    case 'person': {
      const { value_at_data_point: _value, ...rest } = person as ApiPerson & { value_at_data_point?: unknown };
      return rest;
    }
    case 'id':
      return person.uuid;
    case 'created_at':
      return person.created_at;
    case 'person.$delete':
      return 1;
    case 'matched_recordings':
      return [];
    default:
      return row.values[column] ?? null;
  }
}
