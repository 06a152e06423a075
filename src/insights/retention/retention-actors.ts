import { CURRENT_PERSONS } from '../../storage/warehouse/replicas.js';
import { limitClause, type ActorPage } from '../actors/actor-page.js';
import type { RetentionActorRows } from './retention-actor-sql.js';
import type { RetentionSelection } from './retention-filter.js';

/**
 * The actors of one retention row (and, optionally, one interval of it) from the per-actor rows
 * the table counts, each with `appearances[k]` = 1 when the actor counts at interval k of the
 * row. Most appearances first, then the person's integer id (group key for groups).
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
  const persons = groups ? '' : `LEFT JOIN (SELECT id, person_id FROM (${CURRENT_PERSONS})) AS person ON person.id = retained.actor`;
  const sql = `SELECT toString(retained.actor) AS actor_id,
  arrayMap(k -> toUInt8(has(retained.entries, (${key}, toInt64(k)))), range(${length})) AS appearances
FROM (${rows.sql}) AS retained
${persons}
WHERE has(retained.entries, (${key}, ${interval}))
ORDER BY arraySum(appearances) DESC${groups ? '' : ', person.person_id'}, actor_id
${limitClause(page, params)}`;
  return { sql, params: params.all };
}
