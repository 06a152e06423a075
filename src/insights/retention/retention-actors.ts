import type { ActorPage, ActorSortItem } from '../actors/actor-page.js';
import { actorPageSql } from '../actors/actor-page-sql.js';
import type { RetentionActorRows } from './retention-actor-sql.js';
import type { RetentionSelection } from './retention-filter.js';

/** What a retention row knows per actor, for an order to name: how many intervals it counts in, and which (from 0). */
const RETENTION_ACTOR_VALUES = {
  appearance_count: 'arraySum(actors.appearances)',
  appearance_intervals: 'arrayFilter((interval, present) -> present = 1, range(length(actors.appearances)), actors.appearances)',
};

const MOST_APPEARANCES: ActorSortItem = { key: { kind: 'value', name: 'appearance_count' }, descending: true };
const LOWEST_PERSON_NUMBER: ActorSortItem = { key: { kind: 'person_number' }, descending: false };
const BY_ID: ActorSortItem = { key: { kind: 'actor' }, descending: false };

/**
 * The actors of one retention row (and, optionally, one interval of it) from the per-actor rows
 * the table counts, each with `appearances[k]` = 1 when the actor counts at interval k of the
 * row. Most appearances first, then the person's integer id (group key for groups), or in the
 * page's order, ties in that one.
 */
export function retentionActorsSql(
  rows: RetentionActorRows,
  selection: RetentionSelection,
  page: ActorPage,
  groups: boolean,
): { sql: string; params: Record<string, unknown> } {
  const { params } = rows.scope;
  const key = params.add(selection.key, 'Array(String)');
  const length = params.add(selection.length, 'UInt64');
  const interval = params.add(selection.interval ?? 0, 'Int64');
  const retained = `SELECT retained.actor AS actor,
  arrayMap(k -> toUInt8(has(retained.entries, (${key}, toInt64(k)))), range(${length})) AS appearances
FROM (${rows.sql}) AS retained
WHERE has(retained.entries, (${key}, ${interval}))`;
  // Groups are no persons: their rows carry every column their order reads, the group key.
  const order = groups ? [MOST_APPEARANCES, BY_ID] : [MOST_APPEARANCES, LOWEST_PERSON_NUMBER, BY_ID];
  const sql = actorPageSql(
    { sql: retained, persons: groups ? 'carried' : 'joined', values: RETENTION_ACTOR_VALUES, select: ['appearances'], order },
    page,
    params,
  );
  return { sql, params: params.all };
}
