import type { ApiPerson } from '../../persons/person-serializer.js';
import { invalid, isAbsent } from './insight-node-fields.js';

/**
 * The columns of an ActorsQuery (PostHog's `select`): the person and its fields, and what the
 * source knows per actor (a trend's event count, a retention row's appearances). Each column has
 * the ClickHouse type PostHog's response names, and a value to order by.
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
  column: string;
  descending: boolean;
}

/**
 * `orderBy`: `"<column> [ASC|DESC]"` over the source's columns. Null when absent: the default is
 * `created_at DESC` when selected, else the source's own order (null again).
 */
export function readOrderBy(value: unknown, path: string, kind: ActorsSourceKind, select: readonly string[]): ActorOrder[] | null {
  if (isAbsent(value) || (Array.isArray(value) && value.length === 0)) {
    return select.includes('created_at') ? [{ column: 'created_at', descending: true }] : null;
  }
  if (!Array.isArray(value)) invalid(path, 'Must be a list of "<column> [ASC|DESC]".');
  const known = columnTypes(kind);
  return value.map((item, index) => {
    if (typeof item !== 'string') invalid(`${path}.${index}`, 'Must be a string.');
    const match = /^\s*(\S+?)(?:\s+(asc|desc))?\s*$/i.exec(item);
    const name = match?.[1] ?? '';
    const column = ORDER_ALIASES[name] ?? name;
    const allowed = column === 'appearances_count' ? Object.hasOwn(known, 'appearances') : Object.hasOwn(known, column);
    if (!match || !allowed) {
      invalid(`${path}.${index}`, `Cannot order by "${item}": use one of ${Object.keys(known).join(', ')}, optionally followed by ASC or DESC.`);
    }
    return { column, descending: (match[2] ?? 'ASC').toUpperCase() === 'DESC' };
  });
}

/** True when `order` is the order the source lists its actors in anyway: newest person first. */
export function isNewestFirst(order: readonly ActorOrder[]): boolean {
  return order.length === 1 && order[0]!.column === 'created_at' && order[0]!.descending;
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

/** What a column orders by: numbers, text, or a list compared item by item. */
function sortKey(row: ActorRow, column: string): number | string | unknown[] | null {
  switch (column) {
    case 'person':
    case 'id':
      return row.person.uuid;
    case 'created_at':
      return Date.parse(row.person.created_at);
    case 'appearances_count':
      return (row.values.appearances as unknown[] | undefined)?.length ?? 0;
    case 'person.$delete':
    case 'matched_recordings':
      return 0;
    default: {
      const value = row.values[column];
      return value === undefined ? null : (value as number | string | unknown[] | null);
    }
  }
}

function compareKeys(a: unknown, b: unknown): number {
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let index = 0; index < Math.min(a.length, b.length); index++) {
      const compared = compareKeys(a[index], b[index]);
      if (compared !== 0) return compared;
    }
    return a.length - b.length;
  }
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const left = String(a);
  const right = String(b);
  return left < right ? -1 : left > right ? 1 : 0;
}

/**
 * The rows in `order`; rows that tie keep the source's own order (the sort is stable). Nulls
 * come last whichever the direction, as ClickHouse puts them.
 */
export function orderRows(rows: readonly ActorRow[], order: readonly ActorOrder[]): ActorRow[] {
  return [...rows].sort((a, b) => {
    for (const { column, descending } of order) {
      const left = sortKey(a, column);
      const right = sortKey(b, column);
      if (left === null || right === null) {
        if (left !== right) return left === null ? 1 : -1;
        continue;
      }
      const compared = compareKeys(left, right);
      if (compared !== 0) return descending ? -compared : compared;
    }
    return 0;
  });
}
