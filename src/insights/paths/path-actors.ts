import type { SqlParams } from '../../query/sql-params.js';
import type { ActorPage } from '../actors/actor-page.js';
import { actorPageSql, NEWEST_PERSON_FIRST_THEN_ID } from '../actors/actor-page-sql.js';
import type { PathNode, PathFilter } from './path-filter.js';
import type { PathSessions } from './path-session-sql.js';

/**
 * Which session paths the node keys select (PostHog's legacy paths actors): a path ending at
 * the drop-off node (the other keys are then ignored); else one with an edge from the start
 * node, into the end node, or that exact edge; with no key, every path.
 */
function keyCondition(filter: PathFilter, params: SqlParams): string {
  const at = (node: PathNode) =>
    `length(path) >= ${params.add(node.position, 'UInt64')} AND path[${params.add(node.position, 'UInt64')}] = ${params.add(node.item, 'String')}`;
  const { startKey, endKey, dropoffKey } = filter;
  if (dropoffKey) return `${at(dropoffKey)} AND length(path) = ${params.add(dropoffKey.position, 'UInt64')}`;
  const conditions: string[] = [];
  if (startKey) conditions.push(`${at(startKey)} AND length(path) > ${params.add(startKey.position, 'UInt64')}`);
  if (endKey) conditions.push(endKey.position < 2 ? '0' : at(endKey));
  if (startKey && endKey && endKey.position !== startKey.position + 1) conditions.push('0');
  return conditions.length === 0 ? '1' : conditions.map((condition) => `(${condition})`).join(' AND ');
}

/**
 * The persons of a paths node or edge, from the session paths the edges count: a person is in
 * when any of their session paths has it. Newest person first (created_at, then id), or in the
 * page's order, ties in that one.
 */
export function pathActorsSql(sessions: PathSessions, filter: PathFilter, page: ActorPage): { sql: string; params: Record<string, unknown> } {
  const { params } = sessions.scope;
  const selected = `SELECT DISTINCT actor FROM (${sessions.sql}) WHERE ${keyCondition(filter, params)}`;
  const sql = actorPageSql({ sql: selected, persons: 'joined', order: NEWEST_PERSON_FIRST_THEN_ID }, page, params);
  return { sql, params: params.all };
}
