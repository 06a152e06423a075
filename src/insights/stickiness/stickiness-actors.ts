import type { DateTime } from 'luxon';
import type { WeekStartDay, Interval } from '../../query/date-range.js';
import { limitClause, type ActorPage } from '../actors/actor-page.js';
import { SeriesScope, type SeriesDefinition } from '../trends/series-scope.js';
import { bucketExpression } from '../trends/series-math.js';

export interface StickinessActorsQuery {
  series: SeriesDefinition;
  from: DateTime;
  to: DateTime;
  interval: Interval;
  weekStartDay: WeekStartDay;
  /** The data point: persons active in exactly this many intervals of the range. */
  intervals: number;
  page: ActorPage;
}

/** Persons who did the series' event in exactly N distinct intervals (project timezone) of the range. */
export async function stickinessActorsSql(query: StickinessActorsQuery): Promise<{ sql: string; params: Record<string, unknown> }> {
  const scope = await SeriesScope.create(query.series, query.from, query.to);
  const bucket = bucketExpression(query.interval, 'e.timestamp', query.weekStartDay);
  const sql = `SELECT toString(actor) AS actor_id
FROM (SELECT ${scope.source.personId} AS actor, count(DISTINCT ${bucket}) AS active_intervals ${scope.fromWhere()} GROUP BY actor)
WHERE active_intervals = ${scope.params.add(query.intervals, 'UInt64')}
ORDER BY actor
${limitClause(query.page, scope.params)}`;
  return { sql, params: scope.params.all };
}
