import type { Warehouse } from '../../storage/warehouse/warehouse.js';
import type { QueryDateRange } from '../../query/date-range.js';
import type { Breakdown, SeriesMath } from '../filter-model.js';
import { SeriesScope, type SeriesDefinition } from './series-scope.js';
import { aggregateFunction, isSessionDurationMath, simpleAggregate } from './series-math.js';

export const BREAKDOWN_NULL = '$$_posthog_breakdown_null_$$';
export const BREAKDOWN_OTHER = '$$_posthog_breakdown_other_$$';
/** The cohort id PostHog gives the `all` bucket. */
const ALL_USERS = 0;

/** The breakdown buckets of one series, as the response is shaped from them. */
export interface BreakdownBuckets {
  kind: 'property' | 'session' | 'histogram' | 'cohort';
  /** Bucket values in the order they were chosen; rows are matched on `String(value)`. */
  values: Array<string | number>;
}

/**
 * The breakdown buckets of one series and how the series query computes an event's bucket: chosen
 * by a top-values query (event, person, group and session properties), by quantile edges
 * (histograms), or given (cohorts).
 */
export interface BreakdownPlan extends BreakdownBuckets {
  /** The `breakdown_value` expression of the series query. */
  expression(scope: SeriesScope): Promise<string>;
  /** Conditions the series query adds (histograms and sessions keep only their buckets). */
  conditions(scope: SeriesScope): string[];
}

function propertyExpression(breakdown: Breakdown, scope: SeriesScope): string {
  const raw = scope.source.breakdownValue(breakdown, breakdown.property);
  if (!breakdown.normalizeUrl) return raw;
  const trimmed = `trim(TRAILING '/?#' FROM ${raw})`;
  return `if(empty(${trimmed}), '/', ${trimmed})`;
}

export function rawBreakdownExpression(breakdown: Breakdown, scope: SeriesScope): string {
  return breakdown.type === 'session' ? scope.source.sessionDuration : propertyExpression(breakdown, scope);
}

/** What ranks breakdown values: the series' own aggregate, except that per-person maths rank by events. */
function rankingAggregate(math: SeriesMath, scope: SeriesScope): string {
  if (math.kind === 'property' && isSessionDurationMath(math)) {
    return `${aggregateFunction(math.fn)}(${scope.source.sessionDuration})`;
  }
  if (math.kind === 'property' || math.kind === 'unique_group' || math.kind === 'unique_session') {
    return simpleAggregate(math, scope.source, scope.params);
  }
  return 'count()';
}

async function topValues(
  breakdown: Breakdown,
  series: SeriesDefinition,
  range: QueryDateRange,
  offset: number,
  warehouse: Warehouse,
): Promise<{ values: Array<string | number>; hasMore: boolean }> {
  // Values are ranked over the unrounded range, as PostHog does.
  const scope = await SeriesScope.create(series, range.from, range.to);
  const value = rawBreakdownExpression(breakdown, scope);
  const ranking = rankingAggregate(series.entity.math, scope);
  const limit = scope.params.add(breakdown.limit + 1, 'UInt64');
  const skip = scope.params.add(offset, 'UInt64');
  const sql = `SELECT ${value} AS value, ${ranking} AS count
${scope.fromWhere()}
GROUP BY value
ORDER BY count DESC, value DESC
LIMIT ${limit} OFFSET ${skip}`;
  const rows = await warehouse.query<{ value: string | number }>(sql, scope.params.all);
  return {
    values: rows.slice(0, breakdown.limit).map((row) => row.value),
    hasMore: rows.length > breakdown.limit,
  };
}

async function propertyPlan(
  breakdown: Breakdown,
  series: SeriesDefinition,
  range: QueryDateRange,
  offset: number,
  warehouse: Warehouse,
): Promise<BreakdownPlan | null> {
  const { values: top, hasMore } = await topValues(breakdown, series, range, offset, warehouse);
  if (top.length === 0) return null;
  const chosen = top.map((value) => (value === '' ? BREAKDOWN_NULL : String(value)));
  const values = hasMore && !breakdown.hideOtherAggregation ? [...chosen, BREAKDOWN_OTHER] : chosen;
  return {
    kind: 'property',
    values,
    async expression(scope) {
      const known = scope.params.add(chosen, 'Array(String)');
      const nullLabel = scope.params.add(BREAKDOWN_NULL, 'String');
      const otherLabel = scope.params.add(BREAKDOWN_OTHER, 'String');
      return `transform(ifNull(nullIf(${propertyExpression(breakdown, scope)}, ''), ${nullLabel}), ${known}, ${known}, ${otherLabel})`;
    },
    conditions: () => [],
  };
}

async function sessionPlan(
  breakdown: Breakdown,
  series: SeriesDefinition,
  range: QueryDateRange,
  offset: number,
  warehouse: Warehouse,
): Promise<BreakdownPlan | null> {
  const { values: top } = await topValues(breakdown, series, range, offset, warehouse);
  if (top.length === 0) return null;
  const durations = top.map(Number);
  return {
    kind: 'session',
    values: [...durations].sort((a, b) => a - b),
    async expression(scope) {
      return scope.source.sessionDuration;
    },
    conditions: (scope) => [`${scope.source.sessionDuration} IN ${scope.params.add(durations, 'Array(Int64)')}`],
  };
}

/** Python's float repr for the bucket labels: integers keep a `.0`. */
function pythonFloat(value: number): string {
  if (Number.isNaN(value)) return 'nan';
  return Number.isInteger(value) ? value.toFixed(1) : String(value);
}

interface HistogramBucket {
  lower: number;
  upper: number;
  label: string;
}

/** Buckets [e_i, e_{i+1}) between quantile edges; the last is closed and 0.01 wider (edges are floored to 2 places). */
export function histogramBuckets(edges: number[]): HistogramBucket[] {
  const points = edges.length === 1 ? [edges[0]!, edges[0]!] : edges;
  const buckets: HistogramBucket[] = [];
  for (let i = 0; i < points.length - 1; i++) {
    const lower = points[i]!;
    const upper = i === points.length - 2 ? points[i + 1]! + 0.01 : points[i + 1]!;
    buckets.push({ lower, upper, label: `[${pythonFloat(lower)},${pythonFloat(upper)}]` });
  }
  return buckets;
}

async function histogramPlan(breakdown: Breakdown, series: SeriesDefinition, range: QueryDateRange, warehouse: Warehouse): Promise<BreakdownPlan> {
  const bins = breakdown.histogramBinCount!;
  const scope = await SeriesScope.create(series, range.from, range.to);
  const numeric = `toFloat64OrNull(toString(${rawBreakdownExpression(breakdown, scope)}))`;
  const levels = Array.from({ length: bins + 1 }, (_, i) => Number((i / bins).toFixed(2)));
  const levelParams = (bins <= 1 ? [0, 1] : levels).map((level) => scope.params.add(level, 'Float64')).join(', ');
  const sql = `SELECT arrayCompact(arrayMap(x -> floor(x, 2), quantiles(${levelParams})(value))) AS edges
FROM (SELECT ${numeric} AS value, count() AS count ${scope.fromWhere()} GROUP BY value)`;
  const [row] = await warehouse.query<{ edges: Array<number | string | null> }>(sql, scope.params.all);
  const edges = (row?.edges ?? []).map((edge) => (edge === null || edge === 'nan' ? NaN : Number(edge)));
  const allNaN = edges.length === 0 || edges.every(Number.isNaN);
  const buckets = allNaN ? [{ lower: NaN, upper: NaN, label: '[nan,nan]' }] : histogramBuckets(edges);
  return {
    kind: 'histogram',
    values: buckets.map((bucket) => bucket.label),
    async expression(bucketScope) {
      const value = `toFloat64OrNull(toString(${rawBreakdownExpression(breakdown, bucketScope)}))`;
      const branches = buckets
        .filter((bucket) => !Number.isNaN(bucket.lower))
        .flatMap((bucket) => [
          `${value} >= ${bucketScope.params.add(bucket.lower, 'Float64')} AND ${value} < ${bucketScope.params.add(bucket.upper, 'Float64')}`,
          bucketScope.params.add(bucket.label, 'String'),
        ]);
      return branches.length === 0 ? `''` : `multiIf(${branches.join(', ')}, '')`;
    },
    conditions: (bucketScope) => [`toFloat64OrNull(toString(${rawBreakdownExpression(breakdown, bucketScope)})) IS NOT NULL`],
  };
}

function cohortPlan(breakdown: Breakdown, series: SeriesDefinition): BreakdownPlan {
  const ids = breakdown.cohorts.map((cohort) => (cohort === 'all' ? ALL_USERS : cohort));
  return {
    kind: 'cohort',
    values: ids,
    async expression(scope) {
      const members: string[] = [];
      for (const id of ids) {
        members.push(id === ALL_USERS ? '1' : `(${await series.resolvers.cohorts.membershipCondition(id, scope.source.personId, scope.params)})`);
      }
      // A person may be in several cohorts: one row per cohort it belongs to.
      return `arrayJoin(arrayFilter((id, member) -> member, ${scope.params.add(ids, 'Array(Int64)')}, [${members.join(', ')}]))`;
    },
    conditions: () => [],
  };
}

/** The buckets of a breakdown for one series, or null when no event has a value (no series at all). */
export async function planBreakdown(
  breakdown: Breakdown,
  series: SeriesDefinition,
  range: QueryDateRange,
  offset: number,
  warehouse: Warehouse,
): Promise<BreakdownPlan | null> {
  if (breakdown.type === 'cohort') return cohortPlan(breakdown, series);
  if (breakdown.histogramBinCount !== null) return histogramPlan(breakdown, series, range, warehouse);
  if (breakdown.type === 'session') return sessionPlan(breakdown, series, range, offset, warehouse);
  return propertyPlan(breakdown, series, range, offset, warehouse);
}

export { ALL_USERS as ALL_USERS_COHORT };
