import type { SqlResolvers } from '../../query/resolvers.js';
import { toWarehouseTime } from '../../query/date-range.js';
import type { PropertyGroup } from '../../query/property-filter-model.js';
import { EventScope } from '../actors/event-scope.js';
import { bucketExpression } from '../trends/series-math.js';
import type { RetentionBreakdown, RetentionFilter } from './retention-filter.js';

export interface RetentionActorQuery {
  teamId: number;
  timezone: string;
  weekStartDay: 0 | 1;
  filter: RetentionFilter;
  /** The filter's properties with test-account filters (and an actors search) folded in. */
  properties: PropertyGroup;
  resolvers: SqlResolvers;
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
  return scope.source.breakdownValue(breakdown, breakdown.property);
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

/** The events of a retention query, one row each with what both per-actor forms fold. */
interface RetentionEvents {
  scope: EventScope;
  /** The first-time form's cohort needs the key of the first target event; the recurring form the keys of all. */
  key: string | null;
  start: string;
  /** The period index of a time, as the events' `period_index`. */
  periodOf: (at: string) => string;
  /** Columns actor, at, period_index, is_target, is_returning, in_range (and row_key with breakdowns). */
  sql: string;
}

async function retentionEvents(query: RetentionActorQuery): Promise<RetentionEvents> {
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
  const periodOf = (at: string) => `toInt64(${periodIndex(filter, start, at, query.weekStartDay)})`;
  const { actor, condition } = actorOf(filter, scope);
  const key = filter.breakdowns.length > 0 ? `[${filter.breakdowns.map((breakdown) => breakdownValue(breakdown, scope)).join(', ')}]` : null;
  const conditions = [`((${target}) OR (${returning}))`, ...(condition ? [condition] : [])];
  if (filter.firstTime) conditions.push(`(e.timestamp >= ${start} OR (${target}))`);
  const sql = `SELECT ${actor} AS actor, e.timestamp AS at, ${periodOf('e.timestamp')} AS period_index, (${target}) AS is_target,
        (${returning}) AS is_returning, e.timestamp >= ${start} AS in_range${key ? `, ${key} AS row_key` : ''}
      ${scope.fromWhere(conditions, [scope.eventNamesScan([filter.target, filter.returning])])}`;
  return { scope, key, start, periodOf, sql };
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
  const { scope, key, start, sql: events } = await retentionEvents(query);
  const cohorts = cohortsOf(query.filter, start, key !== null);
  const sql = `SELECT actor,
    arrayDistinct(arrayFlatten(arrayMap(c -> arrayMap(k -> (c.1, k),
      arrayConcat([toInt64(0)], arrayMap(r -> r - c.2, arrayFilter(r -> r > c.2, returns)))), cohorts))) AS entries
  FROM (
    SELECT actor, ${cohorts} AS cohorts, groupUniqArrayIf(period_index, is_returning AND in_range) AS returns
    FROM (${events})
    GROUP BY actor
  )
  WHERE notEmpty(cohorts)`;
  return { scope, sql };
}

/**
 * Period indexes of the window run from 0 to `totalIntervals` (a week window starts on the week
 * start before its first full week), so a table of up to this many intervals fits a UInt64 mask.
 */
export const MAX_MASK_INTERVALS = 62;

/**
 * The cohort table without breakdowns, for up to MAX_MASK_INTERVALS intervals: the same
 * counts as the entries of retentionActorRows, from two bit masks per actor (the periods of
 * their cohorts and of their returns) counted once per distinct pair of masks rather than once
 * per actor. Cohort c counts at interval 0 the actors with bit c of their cohorts, and at
 * interval k > 0 those that also have bit c + k of their returns. One row, `counts`, holding
 * counts[c * totalIntervals + k].
 */
export async function retentionCohortCounts(query: RetentionActorQuery): Promise<RetentionActorRows> {
  const { filter } = query;
  if (filter.breakdowns.length > 0 || filter.totalIntervals > MAX_MASK_INTERVALS) {
    throw new Error('retentionCohortCounts takes a table without breakdowns of at most MAX_MASK_INTERVALS intervals');
  }
  const { scope, start, periodOf, sql: events } = await retentionEvents(query);
  const bit = (period: string) => `bitShiftLeft(toUInt64(1), toUInt8(${period}))`;
  const cohorts = filter.firstTime
    ? `if(minIf(at, is_target) >= ${start}, ${bit(periodOf('minIf(at, is_target)'))}, toUInt64(0))`
    : `groupBitOrIf(${bit('period_index')}, is_target AND in_range AND period_index < 64)`;
  const total = scope.params.add(filter.totalIntervals, 'UInt64');
  // Bit c + k of the returns exists for c + k <= totalIntervals; bit 63 is never set, so reading it answers 0 past that.
  const value = `toUInt64(bitTest(cohorts, intDiv(j, ${total})) AND (j % ${total} = 0 OR bitTest(returns, least(intDiv(j, ${total}) + j % ${total}, 63))))`;
  const sql = `SELECT sumForEach(arrayMap(j -> actors * ${value}, range(${total} * ${total}))) AS counts
  FROM (
    SELECT cohorts, returns, count() AS actors
    FROM (
      SELECT actor, ${cohorts} AS cohorts, groupBitOrIf(${bit('period_index')}, is_returning AND in_range AND period_index < 64) AS returns
      FROM (${events})
      GROUP BY actor
    )
    WHERE cohorts != 0
    GROUP BY cohorts, returns
  )`;
  return { scope, sql };
}
