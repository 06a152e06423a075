import type { DateTime } from 'luxon';
import { ValidationError } from '../../errors.js';
import {
  activeUsersAggregateStart,
  activeUsersWindow,
  nextBucket,
  parseDate,
  resolveDateRange,
  toWarehouseTime,
  truncate,
  type ProjectClock,
} from '../../query/date-range.js';
import { CUMULATIVE_DISPLAY, isTimeSeries, type Breakdown, type InsightFilter } from '../filter-model.js';
import { eventPropertyValue } from '../../query/property-filters.js';
import type { ActorPage } from '../actors/actor-page.js';
import { actorPageSql, NEWEST_PERSON_FIRST, type ActorRows } from '../actors/actor-page-sql.js';
import { analysisWindow } from '../actors/analysis-inputs.js';
import { BREAKDOWN_NULL, BREAKDOWN_OTHER } from './breakdown.js';
import { SeriesScope, type SeriesDefinition } from './series-scope.js';
import { aggregateFunction } from './series-math.js';

/** The events window behind one trend data point. */
export interface DataPointRange {
  from: DateTime;
  to: DateTime;
  /** False for the aggregate displays, whose one value covers the whole range. */
  timeSeries: boolean;
}

/**
 * The window of a data point as the trend's persons URLs describe it: `date_from` is the bucket
 * start and `date_to` its end (`date_to` equal to `date_from`, or absent, means the one bucket).
 * Cumulative and aggregate displays give the whole range, which starts where the trend's does:
 * rounded down to its interval.
 */
export function dataPointRange(filter: InsightFilter, clock: ProjectClock): DataPointRange {
  const { dates } = filter;
  const timeSeries = isTimeSeries(filter);
  if (dates.dateFrom === 'all') return { ...analysisWindow(dates, clock), timeSeries };
  const range = resolveDateRange(dates, clock);
  if (filter.display === CUMULATIVE_DISPLAY || !timeSeries) return { from: range.roundedFrom, to: range.to, timeSeries };
  const bucket = truncate(range.from, dates.interval, clock.weekStartDay);
  const bucketEnd = nextBucket(bucket, dates.interval).minus({ milliseconds: 1 });
  if (dates.dateTo === null || dates.dateTo === dates.dateFrom) return { from: range.from, to: bucketEnd, timeSeries };
  if (dates.interval === 'hour') {
    // Hourly URLs end at the next bucket's start, which belongs to the next data point.
    const end = parseDate(dates.dateTo, clock.timezone, clock.now)!.at;
    return { from: range.from, to: end.minus({ milliseconds: 1 }), timeSeries };
  }
  return { from: range.from, to: range.to, timeSeries };
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
  let raw = source.breakdownValue(breakdown, breakdown.property);
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
 * The events a data point counts. Weekly and monthly active users of a bucket count the events
 * after the start of its rolling window and up to its end, as the trend's slots do; in an
 * aggregate display, the last 7 (30) days of the range.
 */
async function dataPointScope(query: TrendActorsQuery): Promise<{ scope: SeriesScope; conditions: string[] }> {
  const { series, range } = query;
  const math = series.entity.math;
  if (math.kind !== 'active') return { scope: await SeriesScope.create(series, range.from, range.to), conditions: [] };
  if (!range.timeSeries) return { scope: await SeriesScope.create(series, activeUsersAggregateStart(range.to, math.windowDays), range.to), conditions: [] };
  const window = activeUsersWindow(range.from, math.windowDays);
  const scope = await SeriesScope.create(series, window.after, window.upTo);
  return { scope, conditions: [`e.timestamp > ${scope.params.add(toWarehouseTime(window.after), "DateTime64(6, 'UTC')")}`] };
}

/** What a trend data point knows per actor, for an order to name. */
const TREND_ACTOR_VALUES = { value: 'actors.value', distinct_ids: 'actors.distinct_ids' };

/**
 * The persons behind one trend data point with their value at it (`value`: the person's event
 * count, or the series' property math over the person's events) and the distinct ids their
 * counted events carry, highest value first, then the person created last, then the highest id
 * (or in the page's order, ties in that one).
 */
export async function trendActorsSql(query: TrendActorsQuery): Promise<{ sql: string; params: Record<string, unknown> }> {
  const { series, breakdown } = query;
  const math = series.entity.math;
  const { scope, conditions } = await dataPointScope(query);
  if (breakdown && query.breakdownValue !== null) {
    const condition = await breakdownCondition(query, breakdown, query.breakdownValue, scope);
    if (condition) conditions.push(`(${condition})`);
  }
  const value =
    math.kind === 'property' ? `${aggregateFunction(math.fn)}(toFloat64OrNull(${eventPropertyValue(scope.source, math.property, scope.params)}))` : 'count()';
  const rows: ActorRows = {
    sql: `SELECT ${scope.source.personId} AS actor, ${value} AS value, arraySort(groupUniqArray(e.distinct_id)) AS distinct_ids ${scope.fromWhere(conditions)} GROUP BY actor`,
    persons: 'joined',
    values: TREND_ACTOR_VALUES,
    select: ['value', 'distinct_ids'],
    order: [{ key: { kind: 'value', name: 'value' }, descending: true }, ...NEWEST_PERSON_FIRST],
  };
  const sql = actorPageSql(rows, query.page, scope.params);
  return { sql, params: scope.params.all };
}
