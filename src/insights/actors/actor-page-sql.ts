import { rawPropertyValue } from '../../query/property-filters.js';
import type { SqlParams } from '../../query/sql-params.js';
import { currentPersonColumns } from '../../storage/warehouse/replicas.js';
import { limitClause, type ActorPage, type ActorSortItem, type ActorSortKey } from './actor-page.js';

/**
 * One page of a data point's actors, ordered by the warehouse: the source's per-actor rows, the
 * current persons joined for what the order reads, sorted and cut to the page there. Only the
 * page's ids (and values) come back, so a data point of a million actors costs one page here.
 */

/** Newest person first, then the highest integer id: the order of every actors list without a value of its own. */
export const NEWEST_PERSON_FIRST: readonly ActorSortItem[] = [
  { key: { kind: 'created_at' }, descending: true },
  { key: { kind: 'person_number' }, descending: true },
];

/** NEWEST_PERSON_FIRST, then the actor id, so that persons deleted since (who all tie) come in one order. */
export const NEWEST_PERSON_FIRST_THEN_ID: readonly ActorSortItem[] = [...NEWEST_PERSON_FIRST, { key: { kind: 'actor' }, descending: false }];

/** The actors of a data point as a source computes them. */
export interface ActorRows {
  /** One row per actor: `actor` (the person UUID, or a group's key) and the source's per-actor values. */
  sql: string;
  /**
   * Where the person columns an order reads come from: the current persons, joined on `actor`,
   * or the rows themselves, which carry the person's `created_at` and `person_id` (persons are
   * then joined only for a property).
   */
  persons: 'joined' | 'carried';
  /** The per-actor values an order may name, as expressions over the rows (`actors`). */
  values?: Readonly<Record<string, string>>;
  /** Columns of the rows answered beside `actor_id`. */
  select?: readonly string[];
  /** The source's own order: the page's order when none is requested, the tie-break of a requested one. */
  order: readonly ActorSortItem[];
}

/**
 * A property's value to order by: its text, NULL when the person does not have it (or has null
 * or empty text there), whether read from its materialized column or from the JSON.
 */
function propertyValue(key: Extract<ActorSortKey, { kind: 'property' }>, params: SqlParams): string {
  const raw = key.column === null ? rawPropertyValue('person.properties', key.key, params) : `person.${key.column}`;
  return `nullIf(nullIf(${raw}, ''), 'null')`;
}

/**
 * The ORDER BY terms of one key. NULLs come last whichever the direction, as ClickHouse puts
 * them. A property orders numbers (JSON numbers or numeric text) by value before other text by
 * its characters, and the reverse when descending.
 */
function orderTerms({ key, descending }: ActorSortItem, rows: ActorRows, params: SqlParams): string[] {
  const direction = descending ? 'DESC' : 'ASC';
  const person = rows.persons === 'joined' ? 'person' : 'actors';
  switch (key.kind) {
    case 'actor':
      return [`actor_id ${direction}`];
    case 'created_at':
      return [`${person}.created_at ${direction}`];
    case 'person_number':
      return [`${person}.person_id ${direction}`];
    case 'property': {
      const value = propertyValue(key, params);
      return [`${value} IS NULL`, `toFloat64OrNull(${value}) ${direction} NULLS ${descending ? 'FIRST' : 'LAST'}`, `${value} ${direction}`];
    }
    case 'value': {
      const value = rows.values?.[key.name];
      if (value === undefined) throw new Error(`the actors of this source have no value "${key.name}" to order by`);
      return [`${value} ${direction}`];
    }
  }
}

/** The persons replica's columns the keys read besides the join's: materialized property columns, else the JSON. */
function propertyColumns(keys: readonly ActorSortItem[]): string[] {
  const columns = new Set<string>();
  for (const { key } of keys) if (key.kind === 'property') columns.add(key.column ?? 'properties');
  return [...columns];
}

/**
 * The page's `actor_id`s (person UUIDs as text) and selected values, in the requested order then
 * the source's. The actors are the join's hash table; the project's persons stream past it.
 */
export function actorPageSql(rows: ActorRows, page: ActorPage, params: SqlParams): string {
  const requested = page.order ?? [];
  const keys = [...requested, ...rows.order];
  const properties = propertyColumns(keys);
  const joined = rows.persons === 'joined' || properties.length > 0;
  // A person deleted since the source read the events has no row to join: last in a requested
  // order, where the hydration counts it as missing.
  const terms = rows.persons === 'joined' && requested.length > 0 ? ['empty(person.id)'] : [];
  terms.push(...keys.flatMap((item) => orderTerms(item, rows, params)));
  const select = ['toString(actors.actor) AS actor_id', ...(rows.select ?? []).map((column) => `actors.${column} AS ${column}`)];
  const from = joined
    ? `(${currentPersonColumns(['id', 'person_id', 'created_at', ...properties])}) AS person
RIGHT JOIN (${rows.sql}) AS actors ON person.id = actors.actor`
    : `(${rows.sql}) AS actors`;
  return `SELECT ${select.join(', ')}
FROM ${from}
ORDER BY ${terms.join(', ')}
${limitClause(page, params)}`;
}
