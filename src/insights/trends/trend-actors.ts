import type { DateTime } from 'luxon';
import { ValidationError } from '../../errors.js';
import {
  activeUsersWindow,
  nextBucket,
  parseDate,
  resolveDateRange,
  truncate,
  type ProjectClock,
} from '../../query/date-range.js';
import { CUMULATIVE_DISPLAY, isTimeSeries, type Breakdown, type InsightFilter } from '../filter-model.js';
import { rawPropertyValue } from '../../query/property-filters.js';
import { limitClause, type ActorPage } from '../actors/actor-page.js';
import { analysisWindow } from '../actors/analysis-inputs.js';
import { BREAKDOWN_NULL, BREAKDOWN_OTHER } from './breakdown.js';
import { SeriesScope, type SeriesDefinition } from './series-scope.js';
import { aggregateFunction } from './series-math.js';

/** The events window behind one trend data point. */
export interface DataPointRange {
  from: DateTime;
  to: DateTime;
}

/**
 * The window of a data point as the trend's persons URLs describe it: `date_from` is the bucket
 * start and `date_to` its end (`date_to` equal to `date_from`, or absent, means the one bucket).
 * Cumulative and aggregate displays give the whole range instead, which is taken as it is.
 */
export function dataPointRange(filter: InsightFilter, clock: ProjectClock): DataPointRange {
  const { dates } = filter;
  if (dates.dateFrom === 'all' || filter.display === CUMULATIVE_DISPLAY || !isTimeSeries(filter)) return analysisWindow(dates, clock);
  const range = resolveDateRange(dates, clock);
  const bucket = truncate(range.from, dates.interval, clock.weekStartDay);
  const bucketEnd = nextBucket(bucket, dates.interval).minus({ milliseconds: 1 });
  if (dates.dateTo === null || dates.dateTo === dates.dateFrom) return { from: range.from, to: bucketEnd };
  if (dates.interval === 'hour') {
    // Hourly URLs end at the next bucket's start, which belongs to the next data point.
    const end = parseDate(dates.dateTo, clock.timezone, clock.now)!.at;
    return { from: range.from, to: end.minus({ milliseconds: 1 }) };
  }
  return { from: range.from, to: range.to };
}

/** The event condition that picks one breakdown bucket, as the trend's breakdown value names it. */
async function breakdownCondition(query: TrendActorsQuery, breakdown: Breakdown, value: string, scope: SeriesScope): Promise<string | null> {
  const { series } = query;
  const { source, params } = scope;
  if (breakdown.type === 'cohort') {
    if (value === 'all' || value === '0') return null;
    if (!/^\d+$/.test(value)) throw new ValidationError('breakdown_value', 'A cohort breakdown value is a cohort id or "all".');
    return series.resolvers.cohorts.membershipCondition(Number(value), source.personId, params);
  }
  if (breakdown.type === 'session') {
    const seconds = Number(value);
    if (value === '' || Number.isNaN(seconds)) throw new ValidationError('breakdown_value', 'A session duration breakdown value is a number.');
    return `${source.sessionDuration} = ${params.add(seconds, 'Float64')}`;
  }
  const json = source.breakdownProperties(breakdown);
  let raw = rawPropertyValue(json, breakdown.property, params);
  if (breakdown.histogramBinCount !== null) {
    const bounds = /^\[(-?[\d.]+),(-?[\d.]+)\]$/.exec(value);
    if (!bounds) throw new ValidationError('breakdown_value', 'A histogram breakdown value is a bucket such as "[1.0,5.0]".');
    const numeric = `toFloat64OrNull(${raw})`;
    return `${numeric} >= ${params.add(Number(bounds[1]), 'Float64')} AND ${numeric} < ${params.add(Number(bounds[2]), 'Float64')}`;
  }
  if (breakdown.normalizeUrl) {
    const trimmed = `trim(TRAILING '/?#' FROM ${raw})`;
    raw = `if(empty(${trimmed}), '/', ${trimmed})`;
  }
  if (value === '' || value === BREAKDOWN_NULL) return `${raw} = ''`;
  if (value === BREAKDOWN_OTHER) return `${raw} NOT IN ${params.add(query.topValues, 'Array(String)')}`;
  return `${raw} = ${params.add(value, 'String')}`;
}

export interface TrendActorsQuery {
  series: SeriesDefinition;
  range: DataPointRange;
  breakdown: Breakdown | null;
  /** The bucket to keep, as sent; null keeps every event of the data point. */
  breakdownValue: string | null;
  /** The breakdown's own buckets ('' for none), which the "Other" bucket leaves out. */
  topValues: string[];
  page: ActorPage;
}

/**
 * The persons behind one trend data point, most active first (`value` is the person's event
 * count, or the series' property math over the person's events).
 */
export async function trendActorsSql(query: TrendActorsQuery): Promise<{ sql: string; params: Record<string, unknown> }> {
  const { series, breakdown } = query;
  const math = series.entity.math;
  const window = math.kind === 'active' ? activeUsersWindow(query.range.from, math.windowDays) : null;
  const scope = await SeriesScope.create(series, window?.after ?? query.range.from, window?.upTo ?? query.range.to);
  const extra: string[] = [];
  if (breakdown && query.breakdownValue !== null) {
    const condition = await breakdownCondition(query, breakdown, query.breakdownValue, scope);
    if (condition) extra.push(`(${condition})`);
  }
  const value =
    math.kind === 'property'
      ? `${aggregateFunction(math.fn)}(toFloat64OrNull(${rawPropertyValue(scope.source.eventProperties, math.property, scope.params)}))`
      : 'count()';
  const sql = `SELECT toString(actor) AS actor_id, actor_value
FROM (SELECT ${scope.source.personId} AS actor, ${value} AS actor_value ${scope.fromWhere(extra)} GROUP BY actor)
ORDER BY actor_value DESC, actor DESC
${limitClause(query.page, scope.params)}`;
  return { sql, params: scope.params.all };
}
