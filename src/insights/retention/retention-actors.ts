import { toWarehouseTime } from '../../query/date-range.js';
import { limitClause, type ActorPage } from '../actors/actor-page.js';
import { EventScope } from '../actors/event-scope.js';
import type { PropertyGroup } from '../../query/property-filter-model.js';
import type { InsightResolvers } from '../trends/series-scope.js';
import { bucketExpression } from '../trends/series-math.js';
import type { RetentionFilter } from './retention-filter.js';

export interface RetentionActorsQuery {
  teamId: number;
  timezone: string;
  weekStartDay: 0 | 1;
  filter: RetentionFilter;
  properties: PropertyGroup;
  selected: number;
  page: ActorPage;
  resolvers: InsightResolvers;
}

/** Whole periods between two period starts, in the project timezone. */
function periodIndex(filter: RetentionFilter, from: string, to: string, weekStartDay: 0 | 1): string {
  const a = bucketExpression(filter.period, from, weekStartDay);
  const b = bucketExpression(filter.period, to, weekStartDay);
  // Weeks as whole days / 7: ClickHouse's week difference counts Monday-based weeks.
  return filter.period === 'week' ? `intDiv(dateDiff('day', ${a}, ${b}), 7)` : `dateDiff('${filter.period}', ${a}, ${b})`;
}

/**
 * The members of one retention cohort and, per member, whether they returned in each later
 * period (`appearances[0]` is the cohort period itself). Recurring: members did the target event
 * in that period. First time: their all-time first target event is in it, so the scan starts
 * at the first event. Most appearances first, then person id.
 */
export async function retentionActorsSql(query: RetentionActorsQuery): Promise<{ sql: string; params: Record<string, unknown> }> {
  const { filter } = query;
  const scope = await EventScope.create({
    teamId: query.teamId,
    timezone: query.timezone,
    from: filter.firstTime ? null : filter.start,
    to: filter.end,
    toExclusive: true,
    properties: query.properties,
    resolvers: query.resolvers,
  });
  const { params } = scope;
  const target = await scope.entityCondition(filter.target, 'target_entity');
  const returning = await scope.entityCondition(filter.returning, 'returning_entity');
  const start = params.add(toWarehouseTime(filter.start), "DateTime64(6, 'UTC')");
  const index = periodIndex(filter, start, 'e.timestamp', query.weekStartDay);
  const selected = params.add(query.selected, 'Int64');
  const length = params.add(filter.totalIntervals - query.selected, 'UInt64');
  const membership = filter.firstTime ? `first_target_period = ${selected}` : `has(target_periods, ${selected})`;
  const sql = `SELECT toString(actor) AS actor_id, appearances
FROM (
  SELECT actor,
    arrayMap(k -> if(k = 0, 1, toUInt8(has(returning_periods, ${selected} + k))), range(${length})) AS appearances
  FROM (
    SELECT actor,
      groupUniqArrayIf(period_index, is_target AND in_range) AS target_periods,
      groupUniqArrayIf(period_index, is_returning AND in_range) AS returning_periods,
      minIf(period_index, is_target) AS first_target_period
    FROM (
      SELECT ${scope.source.personId} AS actor, ${index} AS period_index, (${target}) AS is_target, (${returning}) AS is_returning,
        e.timestamp >= ${start} AS in_range
      ${scope.fromWhere([`((${target}) OR (${returning}))`])}
    )
    GROUP BY actor
  )
  WHERE ${membership}
)
ORDER BY arraySum(appearances) DESC, actor
${limitClause(query.page, params)}`;
  return { sql, params: params.all };
}
