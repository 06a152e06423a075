import type { DateTime } from 'luxon';
import { toWarehouseTime } from '../../query/date-range.js';
import { SqlParams } from '../../query/sql-params.js';
import type { Warehouse } from '../../storage/warehouse/warehouse.js';
import { bucketExpression } from './series-math.js';
import type { SeriesQueryWithoutBreakdown, SeriesRow } from './series-query.js';
import { HOUR_MS } from '../../util/time.js';

/**
 * Trend series that only count named events (or all events) over whole hours, answered from the
 * events table's projection of counts per project, name and UTC hour (warehouse migration 7):
 * ClickHouse reads a few rows per hour instead of every event. The query groups and filters by
 * `toStartOfHour(timestamp)`, `team_id` and `event` alone, which is what lets it use the
 * projection; where the projection is missing from a part, ClickHouse counts that part's events,
 * so the answer is the same either way.
 */

/**
 * The projection holds a few rows per part, name and hour, so the query's cost is planning, not
 * reading: one thread (no parallel pipeline to build and join) and no look at the implicit
 * min/max projections take about a millisecond off every such query at 1M and 10M events. Where
 * a part still lacks the projection, it is read on that one thread.
 */
const PROJECTION_READ_SETTINGS = 'max_threads = 1, optimize_use_implicit_projections = 0';

const startsHour = (at: DateTime) => at.toMillis() % HOUR_MS === 0;
/** The range's upper bound is inclusive: the last millisecond of an hour (written `…:59:59.999999`). */
const endsHour = (at: DateTime) => (at.toMillis() + 1) % HOUR_MS === 0;
const wholeHourOffset = (at: DateTime) => at.offset % 60 === 0;

/**
 * True when hourly counts give a series exactly: total count of an event (or of all events) with
 * no property filter, over a range from the start of an hour to the end of one, in a zone whose
 * offset is whole hours at every bucket (so a local bucket is a set of whole UTC hours).
 */
export function countableByHour(query: SeriesQueryWithoutBreakdown): boolean {
  const { series, range } = query;
  const { entity } = series;
  return (
    entity.type === 'events' &&
    entity.math.kind === 'total' &&
    series.properties.values.length === 0 &&
    startsHour(range.roundedFrom) &&
    endsHour(range.to) &&
    [range.roundedFrom, range.to, ...range.buckets].every(wholeHourOffset)
  );
}

/**
 * The rows of series that are all `countableByHour` over the same range, in one query: counts per
 * bucket and event name, summed per series here. Returns each query's rows, in order.
 */
export async function queryHourlyCounts(queries: SeriesQueryWithoutBreakdown[], warehouse: Warehouse): Promise<SeriesRow[][]> {
  const [first] = queries;
  if (!first) return [];
  const { range, timeSeries } = first;
  const params = new SqlParams();
  params.named('team_id', first.series.teamId, 'Int64');
  params.named('timezone', first.series.timezone, 'String');
  const hour = 'toStartOfHour(e.timestamp)';
  const conditions = [
    'e.team_id = {team_id:Int64}',
    `${hour} >= toStartOfHour(${params.add(toWarehouseTime(range.roundedFrom), "DateTime64(6, 'UTC')")})`,
    `${hour} <= toStartOfHour(${params.add(toWarehouseTime(range.to), "DateTime64(6, 'UTC')")})`,
  ];
  const names = queries.map((query) => query.series.entity.id);
  if (!names.includes(null)) conditions.push(`e.event IN ${params.add([...new Set(names.map(String))], 'Array(String)')}`);
  const keys = [...(timeSeries ? [`${bucketExpression(range.interval, hour, range.weekStartDay)} AS bucket`] : []), 'e.event AS event'];
  const sql = `SELECT ${keys.join(', ')}, count() AS value
FROM events AS e
WHERE ${conditions.join(' AND ')}
GROUP BY ${timeSeries ? 'bucket, ' : ''}event
SETTINGS ${PROJECTION_READ_SETTINGS}`;
  const rows = await warehouse.query<{ bucket?: string; event: string; value: string | number }>(sql, params.all);
  return queries.map((query) => {
    const name = query.series.entity.id === null ? null : String(query.series.entity.id);
    const byBucket = new Map<string, number>();
    for (const row of rows) {
      if (name !== null && row.event !== name) continue;
      const bucket = timeSeries ? String(row.bucket) : '';
      byBucket.set(bucket, (byBucket.get(bucket) ?? 0) + Number(row.value));
    }
    if (!timeSeries) return [{ value: byBucket.get('') ?? 0 }];
    return [...byBucket].map(([bucket, value]) => ({ bucket, value }));
  });
}
