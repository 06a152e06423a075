import type { DateTime } from 'luxon';
import type { Interval, WeekStartDay } from '../../query/date-range.js';
import type { SqlParams } from '../../query/sql-params.js';
import { bucketExpression } from '../trends/series-math.js';
import { SeriesScope, type SeriesDefinition } from '../trends/series-scope.js';
import type { StickinessCriteria, StickinessOperator } from './stickiness-filter.js';

export interface StickinessRowsQuery {
  series: SeriesDefinition;
  interval: Interval;
  weekStartDay: WeekStartDay;
  from: DateTime;
  to: DateTime;
  /** Null: an interval counts when the actor has any event in it. */
  criteria: StickinessCriteria | null;
}

/** The rows of one stickiness query, as a subquery; `params` takes the outer query's parameters too. */
export interface StickinessRows {
  sql: string;
  params: SqlParams;
}

const COMPARISONS: Record<StickinessOperator, string> = { gte: '>=', lte: '<=', exact: '=' };

/**
 * THE per-actor SQL of stickiness, which the insight counts and its actors
 * list: one row per person who did the series' event in the range, with the number of distinct
 * intervals (in the project timezone) it did it in. Any math of the series is ignored, as
 * PostHog's stickiness ignores it. With criteria, an interval counts only when the person's
 * events in it satisfy them, and a person with no such interval has no row.
 */
export async function stickinessActorRows(query: StickinessRowsQuery): Promise<StickinessRows> {
  const series: SeriesDefinition = { ...query.series, entity: { ...query.series.entity, math: { kind: 'total' } } };
  const scope = await SeriesScope.create(series, query.from, query.to);
  const bucket = bucketExpression(query.interval, 'e.timestamp', query.weekStartDay);
  const actor = scope.source.personId;
  if (query.criteria === null) {
    return { sql: `SELECT ${actor} AS actor, uniqExact(${bucket}) AS intervals ${scope.fromWhere()} GROUP BY actor`, params: scope.params };
  }
  const value = scope.params.add(query.criteria.value, 'UInt64');
  const qualifying = `SELECT ${actor} AS actor, ${bucket} AS bucket ${scope.fromWhere()} GROUP BY actor, bucket HAVING count() ${COMPARISONS[query.criteria.operator]} ${value}`;
  return { sql: `SELECT actor, count() AS intervals FROM (${qualifying}) GROUP BY actor`, params: scope.params };
}
