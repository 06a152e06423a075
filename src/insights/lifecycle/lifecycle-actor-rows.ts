import type { DateTime } from 'luxon';
import { CURRENT_PERSONS } from '../../storage/warehouse/replicas.js';
import { formatDay, nextBucket, truncate, type Interval, type WeekStartDay } from '../../query/date-range.js';
import type { SqlParams } from '../../query/sql-params.js';
import { bucketExpression } from '../trends/series-math.js';
import { SeriesScope, type SeriesDefinition } from '../trends/series-scope.js';

export interface LifecycleRowsQuery {
  series: SeriesDefinition;
  interval: Interval;
  weekStartDay: WeekStartDay;
  /** Start of the first and of the last period of the query's range. */
  first: DateTime;
  last: DateTime;
  /** The periods whose rows are kept. */
  kept: DateTime[];
}

/** The rows of one lifecycle query, as a subquery; `params` takes the outer query's parameters too. */
export interface LifecycleRows {
  sql: string;
  params: SqlParams;
}

const UNIT: Record<Interval, string> = { hour: 'HOUR', day: 'DAY', week: 'WEEK', month: 'MONTH' };

/**
 * THE per-actor SQL of lifecycle, which the insight counts and its actors
 * list: one row per person, period and status, with the person's created_at and integer id to
 * order by. Each person's active periods come from one pass over the series' events, from the
 * period before the first to the end of the last (so the first period can tell returning from
 * resurrecting); arrays then give every active period its status (new when the person was
 * created in it, returning when the period before was active, else resurrecting) and every
 * active period followed by an inactive one a dormant row for that next period. Persons no
 * longer in the catalog have no creation time and are left out, as PostHog's join leaves them.
 */
export async function lifecycleActorRows(query: LifecycleRowsQuery): Promise<LifecycleRows> {
  const { interval, weekStartDay } = query;
  const fetchFrom = truncate(query.first.minus({ milliseconds: 1 }), interval, weekStartDay);
  const fetchUntil = nextBucket(query.last, interval).minus({ milliseconds: 1 });
  const series: SeriesDefinition = { ...query.series, entity: { ...query.series.entity, math: { kind: 'total' } } };
  const scope = await SeriesScope.create(series, fetchFrom, fetchUntil);
  const { params } = scope;
  const unit = UNIT[interval];
  const kept = params.add(
    query.kept.map((period) => formatDay(period, interval)),
    'Array(String)',
  );
  const sql = `SELECT actor, person_id, created_at, toString(period_status.1) AS period, period_status.2 AS status
FROM (
  SELECT activity.actor AS actor, person.person_id AS person_id, person.created_at AS created_at, activity.periods AS periods,
    ${bucketExpression(interval, 'person.created_at', weekStartDay)} AS created_period
  FROM (
    SELECT ${scope.source.personId} AS actor, groupUniqArray(${bucketExpression(interval, 'e.timestamp', weekStartDay)}) AS periods
    ${scope.fromWhere()}
    GROUP BY actor
  ) AS activity
  INNER JOIN (SELECT id, person_id, created_at FROM (${CURRENT_PERSONS})) AS person ON person.id = activity.actor
)
ARRAY JOIN arrayConcat(
  arrayMap(p -> (p, multiIf(p = created_period, 'new', has(periods, p - INTERVAL 1 ${unit}), 'returning', 'resurrecting')), periods),
  arrayMap(p -> (p + INTERVAL 1 ${unit}, 'dormant'), arrayFilter(p -> NOT has(periods, p + INTERVAL 1 ${unit}), periods))
) AS period_status
WHERE period IN ${kept}`;
  return { sql, params };
}
