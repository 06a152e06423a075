import { EventSource } from '../query/event-source.js';
import { compilePropertyFilters } from '../query/property-filters.js';
import type { SqlResolvers } from '../query/resolvers.js';
import { SqlParams } from '../query/sql-params.js';
import type { EventCursor } from './event-cursor.js';
import type { EventListQuery } from './event-list-query.js';
import { EARLIEST_EVENT_TIME, warehouseTime } from './event-time.js';

const DATETIME = "DateTime64(6, 'UTC')";

/** The FROM clause, WHERE conditions and bound parameters every window of one listing shares. */
export interface EventScope {
  params: SqlParams;
  from: string;
  conditions: string[];
  newestFirst: boolean;
}

export interface EventScopeInput {
  teamId: number;
  query: EventListQuery;
  /** The distinct ids of `query.person`, when it names one. */
  personDistinctIds: string[] | null;
  resolvers: SqlResolvers;
}

function cursorConditions(cursor: EventCursor, newestFirst: boolean, params: SqlParams): string[] {
  const time = params.named('cursor_time', cursor.time, DATETIME);
  const uuid = params.named('cursor_uuid', cursor.uuid, 'UUID');
  const [bound, strict] = newestFirst ? ['<=', '<'] : ['>=', '>'];
  // The plain time condition is what the sort key and partitions prune on; the tuple orders ties.
  return [`e.timestamp ${bound} ${time}`, `(e.timestamp, e.uuid) ${strict} (${time}, ${uuid})`];
}

/**
 * Compiles the listing's filters into conditions on `events AS e`: the project and time bounds
 * first, then name, distinct ids, the action (through the action resolver trends use) and the
 * property filters (through the one property-filter compiler). Null when the action does not
 * exist in the project, so nothing can match.
 */
export async function buildEventScope(input: EventScopeInput): Promise<EventScope | null> {
  const { query } = input;
  const params = new SqlParams();
  params.named('team_id', input.teamId, 'Int64');
  const lower = warehouseTime(query.after ?? EARLIEST_EVENT_TIME);
  const upper = warehouseTime(query.before);
  const source = new EventSource(params, { from: lower, to: upper });
  const conditions = ['e.team_id = {team_id:Int64}', `e.timestamp < ${params.named('before', upper, DATETIME)}`];
  if (query.after !== null) conditions.push(`e.timestamp > ${params.named('after', lower, DATETIME)}`);
  if (query.cursor) conditions.push(...cursorConditions(query.cursor, query.newestFirst, params));
  if (query.event !== null) conditions.push(`e.event = ${params.add(query.event, 'String')}`);
  if (query.distinctId !== null) conditions.push(`e.distinct_id = ${params.add(query.distinctId, 'String')}`);
  if (input.personDistinctIds !== null) {
    conditions.push(`e.distinct_id IN ${params.add(input.personDistinctIds, 'Array(String)')}`);
  }
  if (query.actionId !== null) {
    const action = await input.resolvers.actions.resolve(query.actionId, source, params);
    if (!action) return null;
    conditions.push(`(${action.condition})`);
  }
  const properties = await compilePropertyFilters(query.properties, { columns: source, params, cohorts: input.resolvers.cohorts });
  if (properties !== '1') conditions.push(`(${properties})`);
  return { params, from: source.fromClause(), conditions, newestFirst: query.newestFirst };
}
