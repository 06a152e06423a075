/**
 * SQL for the current state of the replicated catalog rows. Replicas are ReplacingMergeTree
 * tables whose rows carry a version (the outbox id) and an is_deleted flag, so "current" is the
 * latest version of each key, dropped when that version is a delete. Each builder expects a
 * bound `{team_id:Int64}` parameter in the surrounding query.
 */

/** distinct_id → person_id (UUID) of every live distinct id of the project. */
export const CURRENT_DISTINCT_IDS = `
  SELECT distinct_id, argMax(person_id, version) AS person_id
  FROM person_distinct_ids
  WHERE team_id = {team_id:Int64}
  GROUP BY distinct_id
  HAVING argMax(is_deleted, version) = 0`;

/** The live persons of the project with their latest properties. */
export const CURRENT_PERSONS = `
  SELECT
    id,
    argMax(person_id, version) AS person_id,
    argMax(properties, version) AS properties,
    argMax(is_identified, version) AS is_identified,
    argMax(created_at, version) AS created_at
  FROM persons
  WHERE team_id = {team_id:Int64}
  GROUP BY id
  HAVING argMax(is_deleted, version) = 0`;

/** The groups of the project with their latest properties. */
export const CURRENT_GROUPS = `
  SELECT
    group_type_index,
    group_key,
    argMax(group_properties, version) AS group_properties,
    argMax(created_at, version) AS created_at
  FROM groups
  WHERE team_id = {team_id:Int64}
  GROUP BY group_type_index, group_key`;
