import type { DateTime } from 'luxon';
import type { Interval, WeekStartDay } from '../../query/date-range.js';
import type { SqlParams } from '../../query/sql-params.js';
import { bucketExpression } from '../trends/series-math.js';
import { SeriesScope, type SeriesDefinition } from '../trends/series-scope.js';

export interface StickinessRowsQuery {
  series: SeriesDefinition;
  interval: Interval;
  weekStartDay: WeekStartDay;
  from: DateTime;
  to: DateTime;
}

/** The rows of one stickiness query, as a subquery; `params` takes the outer query's parameters too. */
export interface StickinessRows {
  sql: string;
  params: SqlParams;
}

/**
 * THE per-actor SQL of stickiness (insights.md §5.2), which the insight counts and its actors
 * list: one row per person who did the series' event in the range, with the number of distinct
 * intervals (in the project timezone) it did it in. Any math of the series is ignored, as
 * PostHog's stickiness ignores it.
 */
export async function stickinessActorRows(query: StickinessRowsQuery): Promise<StickinessRows> {
  const series: SeriesDefinition = { ...query.series, entity: { ...query.series.entity, math: { kind: 'total' } } };
  const scope = await SeriesScope.create(series, query.from, query.to);
  const bucket = bucketExpression(query.interval, 'e.timestamp', query.weekStartDay);
  return {
    sql: `SELECT ${scope.source.personId} AS actor, uniqExact(${bucket}) AS intervals ${scope.fromWhere()} GROUP BY actor`,
    params: scope.params,
  };
}
