import { toWarehouseTime } from '../../query/date-range.js';
import { rawPropertyValue } from '../../query/property-filters.js';
import type { PropertyGroup } from '../../query/property-filter-model.js';
import { EventScope } from '../actors/event-scope.js';
import type { InsightResolvers } from '../trends/series-scope.js';
import { bucketExpression } from '../trends/series-math.js';
import type { RetentionBreakdown, RetentionFilter } from './retention-filter.js';

export interface RetentionActorQuery {
  teamId: number;
  timezone: string;
  weekStartDay: 0 | 1;
  filter: RetentionFilter;
  /** The filter's properties with test-account filters (and an actors search) folded in. */
  properties: PropertyGroup;
  resolvers: InsightResolvers;
}

/** The per-actor rows of a retention query, and the scope whose parameters they bind. */
export interface RetentionActorRows {
  scope: EventScope;
  sql: string;
}

/** Whole periods between two period starts, in the project timezone. */
function periodIndex(filter: RetentionFilter, from: string, to: string, weekStartDay: 0 | 1): string {
  const a = bucketExpression(filter.period, from, weekStartDay);
  const b = bucketExpression(filter.period, to, weekStartDay);
  // Weeks as whole days / 7: ClickHouse's week difference counts Monday-based weeks.
  return filter.period === 'week' ? `intDiv(dateDiff('day', ${a}, ${b}), 7)` : `dateDiff('${filter.period}', ${a}, ${b})`;
}

function breakdownValue(breakdown: RetentionBreakdown, scope: EventScope): string {
  const { source, params } = scope;
  const json =
    breakdown.type === 'person'
      ? source.personProperties
      : breakdown.type === 'group'
        ? source.groupProperties(breakdown.groupTypeIndex!)
        : source.eventProperties;
  return rawPropertyValue(json, breakdown.property, params);
}

/** The actor of an event, and the condition an event needs to have one. */
function actorOf(filter: RetentionFilter, scope: EventScope): { actor: string; condition: string | null } {
  const index = filter.aggregationGroupTypeIndex;
  if (index === null) return { actor: scope.source.personId, condition: null };
  return { actor: `e.\`$group_${index}\``, condition: `e.\`$group_${index}\` != ''` };
}

/**
 * An actor's cohorts, as (row key, period index) pairs: the period of every target event in the
 * window (recurring), or of the all-time first target event when that is in the window (first
 * time). The row key is the event's breakdown values, or the cohort index as text.
 */
function cohortsOf(filter: RetentionFilter, start: string, breakdown: boolean): string {
  if (filter.firstTime) {
    const period = 'argMinIf(period_index, at, is_target)';
    const key = breakdown ? 'argMinIf(row_key, at, is_target)' : `[toString(${period})]`;
    return `if(minIf(at, is_target) >= ${start}, [(${key}, ${period})], [])`;
  }
  return breakdown
    ? 'groupUniqArrayIf((row_key, period_index), is_target AND in_range)'
    : 'arrayMap(p -> ([toString(p)], p), groupUniqArrayIf(period_index, is_target AND in_range))';
}

/**
 * THE per-actor SQL of retention, which the table counts and the actors endpoint lists, so a
 * data point's count is always its actors' count. One row per actor (a person, or a group with
 * `aggregation_group_type_index`): `actor` and `entries`, the distinct (row key, interval)
 * pairs the actor counts in. A row key is the cohort index as text (`['3']`) for the cohort
 * table, or the breakdown values of the target events (`['Chrome']`).
 *
 * As PostHog's legacy retention: an actor's cohorts are the periods of their target events
 * (recurring) or of their all-time first target event, when it falls in the window (first
 * time); interval 0 of a cohort is the cohort itself, interval k > 0 a returning event k periods
 * after it. Returns in the cohort's own period do not count, and every event is inside the
 * window (`timestamp <= end`), so later returns are never seen. Each actor's events are folded
 * with array functions in one GROUP BY, without joining the events to themselves.
 */
export async function retentionActorRows(query: RetentionActorQuery): Promise<RetentionActorRows> {
  const { filter } = query;
  const scope = await EventScope.create({
    teamId: query.teamId,
    timezone: query.timezone,
    // First-time retention reads every earlier target event, to know whose first one is in the window.
    from: filter.firstTime ? null : filter.start,
    to: filter.end,
    properties: query.properties,
    resolvers: query.resolvers,
  });
  const { params } = scope;
  const target = await scope.entityCondition(filter.target, 'target_entity');
  const returning = await scope.entityCondition(filter.returning, 'returning_entity');
  const start = params.add(toWarehouseTime(filter.start), "DateTime64(6, 'UTC')");
  const index = periodIndex(filter, start, 'e.timestamp', query.weekStartDay);
  const { actor, condition } = actorOf(filter, scope);
  const key = filter.breakdowns.length > 0 ? `[${filter.breakdowns.map((breakdown) => breakdownValue(breakdown, scope)).join(', ')}]` : null;
  const cohorts = cohortsOf(filter, start, key !== null);
  const conditions = [`((${target}) OR (${returning}))`, ...(condition ? [condition] : [])];
  if (filter.firstTime) conditions.push(`(e.timestamp >= ${start} OR (${target}))`);
  const sql = `SELECT actor,
    arrayDistinct(arrayFlatten(arrayMap(c -> arrayMap(k -> (c.1, k),
      arrayConcat([toInt64(0)], arrayMap(r -> r - c.2, arrayFilter(r -> r > c.2, returns)))), cohorts))) AS entries
  FROM (
    SELECT actor, ${cohorts} AS cohorts, groupUniqArrayIf(period_index, is_returning AND in_range) AS returns
    FROM (
      SELECT ${actor} AS actor, e.timestamp AS at, toInt64(${index}) AS period_index, (${target}) AS is_target,
        (${returning}) AS is_returning, e.timestamp >= ${start} AS in_range${key ? `, ${key} AS row_key` : ''}
      ${scope.fromWhere(conditions)}
    )
    GROUP BY actor
  )
  WHERE notEmpty(cohorts)`;
  return { scope, sql };
}
