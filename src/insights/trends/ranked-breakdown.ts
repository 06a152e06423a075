import type { Warehouse } from '../../storage/warehouse/warehouse.js';
import { toWarehouseTime } from '../../query/date-range.js';
import type { Breakdown, SeriesMath } from '../filter-model.js';
import { BREAKDOWN_NULL, BREAKDOWN_OTHER, rawBreakdownExpression, type BreakdownBuckets } from './breakdown.js';
import type { SeriesQuery, SeriesQueryWithoutBreakdown, SeriesRow } from './series-query.js';
import { SeriesScope } from './series-scope.js';
import { bucketExpression } from './series-math.js';

/**
 * A property breakdown of a total or dau series in ONE scan of the events: each (bucket, value)
 * keeps its event count for ranking and a mergeable aggregate state, the values are ranked by
 * their events over the unrounded range as the top-values query would, and the states of the
 * values outside the chosen page merge into the Other bucket. Other breakdowns and maths take the
 * top-values query and then the series query (breakdown.ts, series-query.ts).
 */

const STATE_OF: Partial<Record<SeriesMath['kind'], { state: (personId: string) => string; merge: string }>> = {
  total: { state: () => 'count()', merge: 'sum' },
  dau: { state: (personId) => `uniqExactState(${personId})`, merge: 'uniqExactMerge' },
};

export function ranksInSeriesQuery(breakdown: Breakdown, query: Pick<SeriesQuery, 'series' | 'firstSeenOnly'>): boolean {
  const property = breakdown.type === 'event' || breakdown.type === 'person' || breakdown.type === 'group';
  return property && breakdown.histogramBinCount === null && !query.firstSeenOnly && STATE_OF[query.series.entity.math.kind] !== undefined;
}

interface RankedRow {
  bucket?: string;
  breakdown_value: string;
  value: number | string;
  /** The value's rank when chosen, 0 for the Other bucket. */
  chosen_rank: number | string;
  /** Whether values beyond the page exist. */
  has_more: number | string;
}

export async function queryRankedBreakdown(
  query: SeriesQueryWithoutBreakdown,
  breakdown: Breakdown,
  offset: number,
  warehouse: Warehouse,
): Promise<{ plan: BreakdownBuckets | null; rows: SeriesRow[] }> {
  const { series, range, timeSeries } = query;
  const aggregate = STATE_OF[series.entity.math.kind]!;
  const scope = await SeriesScope.create(series, range.roundedFrom, range.to);
  const value = rawBreakdownExpression(breakdown, scope);
  const state = aggregate.state(scope.source.personId);
  // Values are ranked over the unrounded range, as PostHog does.
  const rankedFrom = scope.params.add(toWarehouseTime(range.from), "DateTime64(6, 'UTC')");
  const first = scope.params.add(offset, 'UInt64');
  const last = scope.params.add(offset + breakdown.limit, 'UInt64');
  const nullLabel = scope.params.add(BREAKDOWN_NULL, 'String');
  const otherLabel = scope.params.add(BREAKDOWN_OTHER, 'String');
  const bucket = timeSeries ? `${bucketExpression(range.interval, 'e.timestamp', range.weekStartDay)} AS bucket, ` : '';
  const bucketKey = timeSeries ? 'bucket, ' : '';
  const sql = `SELECT ${bucketKey}if(chosen, if(property_value = '', ${nullLabel}, property_value), ${otherLabel}) AS breakdown_value,
  ${aggregate.merge}(state) AS value, max(if(chosen, rank, 0)) AS chosen_rank, max(more) AS has_more
FROM (
  SELECT *, value_events > 0 AND rank > ${first} AND rank <= ${last} AS chosen,
    max(value_events > 0 AND rank > ${last}) OVER () AS more
  FROM (
    SELECT *, dense_rank() OVER (ORDER BY value_events DESC, property_value DESC) AS rank
    FROM (
      SELECT *, sum(ranked_events) OVER (PARTITION BY property_value) AS value_events
      FROM (
        SELECT ${bucket}${value} AS property_value, countIf(e.timestamp >= ${rankedFrom}) AS ranked_events, ${state} AS state
        ${scope.fromWhere()}
        GROUP BY ${bucketKey}property_value))))
GROUP BY ${bucketKey}breakdown_value`;
  const ranked = await warehouse.query<RankedRow>(sql, scope.params.all);
  const chosen = new Map<string, number>();
  for (const row of ranked) if (Number(row.chosen_rank) > 0) chosen.set(row.breakdown_value, Number(row.chosen_rank));
  if (chosen.size === 0) return { plan: null, rows: [] };
  const values: Array<string | number> = [...chosen].sort((a, b) => a[1] - b[1]).map(([label]) => label);
  if (ranked.some((row) => Number(row.has_more) === 1) && !breakdown.hideOtherAggregation) values.push(BREAKDOWN_OTHER);
  const plan: BreakdownBuckets = { kind: 'property', values };
  const rows = ranked.map((row) => ({
    ...(timeSeries ? { bucket: row.bucket } : {}),
    breakdown_value: row.breakdown_value,
    value: Number(row.value),
  }));
  return { plan, rows };
}
