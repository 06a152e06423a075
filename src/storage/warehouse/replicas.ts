/**
 * SQL for the current state of the replicated catalog rows. Replicas are ReplacingMergeTree
 * tables keyed by the row's identity, whose rows carry a version (the outbox id) and an
 * is_deleted flag, so "current" is the latest version of each key, dropped when that version is
 * a delete. FINAL resolves the versions as a streaming merge, about twice as fast as grouping by
 * key; the is_deleted condition applies after it because ClickHouse does not move conditions
 * into PREWHERE on FINAL queries (optimize_move_to_prewhere_if_final is off). Each builder
 * expects a bound `{team_id:Int64}` parameter in the surrounding query.
 */

/** distinct_id → person_id (UUID) of every live distinct id of the project. */
export const CURRENT_DISTINCT_IDS = `
  SELECT distinct_id, person_id
  FROM person_distinct_ids FINAL
  WHERE team_id = {team_id:Int64} AND is_deleted = 0`;

/**
 * The live persons of the project with only these columns: a query that reads a few properties
 * selects their materialized columns (which `SELECT *` leaves out) instead of the whole JSON.
 */
export function currentPersonColumns(columns: readonly string[]): string {
  return `
  SELECT ${columns.join(', ')}
  FROM persons FINAL
  WHERE team_id = {team_id:Int64} AND is_deleted = 0`;
}

/** The live persons of the project with their latest properties. */
export const CURRENT_PERSONS = currentPersonColumns(['id', 'person_id', 'properties', 'is_identified', 'created_at']);

/** The groups of the project with their latest properties. */
export const CURRENT_GROUPS = `
  SELECT group_type_index, group_key, group_properties, created_at
  FROM groups FINAL
  WHERE team_id = {team_id:Int64}`;
