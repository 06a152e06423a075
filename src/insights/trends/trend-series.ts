import { DateTime } from 'luxon';
import { randomBase62 } from '../../util/random.js';
import { DAY_MS, HOUR_MS } from '../../util/time.js';
import { formatDay, formatLabel, instantPlus, type DateRangeInput, type Interval, type QueryDateRange } from '../../query/date-range.js';
import { CUMULATIVE_DISPLAY, type InsightFilter, type SeriesEntity } from '../filter-model.js';
import { ALL_USERS_COHORT, BREAKDOWN_NULL, BREAKDOWN_OTHER, type BreakdownBuckets } from './breakdown.js';
import { entityToJson, filterToJson, type JsonObject } from './filter-echo.js';
import { PersonsUrls, pythonIsoformat } from './persons-urls.js';
import type { SeriesRow } from './series-query.js';

/** Builds the series items of PostHog's legacy trends answer (`/insights/trend/`) from aggregated rows. */

export const OTHER_LABEL = 'Other (i.e. all remaining values)';
export const NULL_LABEL = 'None (i.e. no value)';

export interface ShapeContext {
  projectId: number;
  filter: InsightFilter;
  /** The dates of this period (the previous period's when comparing). */
  dates: DateRangeInput;
  range: QueryDateRange;
  /** `days` of aggregate displays. */
  aggregateDays: string[];
  /** Filter-level date_from, echoed by cumulative persons URLs. */
  filterDateFrom: DateTime | null;
  cohortNames: Map<number, string>;
  /** False when a formula combines the series: it accumulates the combined series itself. */
  accumulate: boolean;
}

export type SeriesItem = JsonObject & { label: string; count: number; data: number[]; labels: string[]; days: string[] };

/** The end of a bucket as PostHog's persons URLs give it. */
function bucketEnd(bucket: DateTime, interval: Interval): DateTime {
  switch (interval) {
    case 'month':
      return bucket.plus({ months: 1 }).minus({ days: 1 }).startOf('day');
    case 'week':
      return bucket.plus({ days: 6 }).startOf('day');
    case 'hour':
      return instantPlus(bucket, HOUR_MS);
    case 'day':
      // A bucket starts its day; in a fixed-offset zone the day is 86,400,000 ms, one step instead of luxon's three.
      return bucket.zone.isUniversal ? instantPlus(bucket, DAY_MS - 1) : bucket.endOf('day');
  }
}

function displayLabel(value: string | number, plan: BreakdownBuckets, context: ShapeContext): string {
  if (plan.kind === 'cohort') {
    return value === ALL_USERS_COHORT ? 'all users' : (context.cohortNames.get(Number(value)) ?? String(value));
  }
  if (value === BREAKDOWN_OTHER) return OTHER_LABEL;
  if (value === BREAKDOWN_NULL || value === '') return NULL_LABEL;
  return String(value);
}

function breakdownValueOf(value: string | number, plan: BreakdownBuckets): string | number {
  return plan.kind === 'cohort' && value === ALL_USERS_COHORT ? 'all' : value;
}

/** Moving average over the bucket and the N−1 before it (fewer at the start). */
export function smooth(data: number[], intervals: number): number[] {
  if (intervals <= 1) return data;
  return data.map((_, index) => {
    const window = data.slice(Math.max(0, index - intervals + 1), index + 1);
    return window.reduce((sum, value) => sum + value, 0) / window.length;
  });
}

export function runningTotal(data: number[]): number[] {
  let total = 0;
  return data.map((value) => (total += value));
}

function sum(data: number[]): number {
  return data.reduce((total, value) => total + value, 0);
}

function seriesData(rows: SeriesRow[], context: ShapeContext): number[] {
  const byBucket = new Map(rows.map((row) => [row.bucket, row.value ?? 0]));
  return context.range.buckets.map((bucket) => byBucket.get(formatDay(bucket, context.range.interval)) ?? 0);
}

function sortKey(item: SeriesItem, plan: BreakdownBuckets | null): [number, string] {
  if (plan?.kind === 'cohort' && item.breakdown_value === 'all') return [-1, ''];
  const amount = typeof item.aggregated_value === 'number' ? item.aggregated_value : item.count;
  return [-(amount || 0), item.label];
}

/** PostHog's order of breakdown series: total descending, then label (code-point order). */
export function sortBreakdownItems(items: SeriesItem[], plan: BreakdownBuckets): SeriesItem[] {
  // Session durations and histogram buckets keep their value order.
  if (plan.kind === 'session' || plan.kind === 'histogram') return items;
  return [...items].sort((a, b) => {
    const [amountA, labelA] = sortKey(a, plan);
    const [amountB, labelB] = sortKey(b, plan);
    if (amountA !== amountB) return amountA - amountB;
    return labelA < labelB ? -1 : labelA > labelB ? 1 : 0;
  });
}

/** Time-series items of one entity: one per breakdown value (or one without breakdown). */
export function timeSeriesItems(entity: SeriesEntity, rows: SeriesRow[], plan: BreakdownBuckets | null, context: ShapeContext): SeriesItem[] {
  const { filter, range } = context;
  const filterJson = filterToJson(filter, context.dates);
  const labels = range.buckets.map((bucket) => formatLabel(bucket, range.interval));
  const days = range.buckets.map((bucket) => formatDay(bucket, range.interval));
  const cumulative = filter.display === CUMULATIVE_DISPLAY;
  const accumulate = cumulative && context.accumulate;
  const urls = new PersonsUrls(context.projectId, filterJson, randomBase62(8));
  const bucketDates = range.buckets.map((bucket) => ({
    date_from: pythonIsoformat(cumulative && context.filterDateFrom ? context.filterDateFrom : bucket),
    // A range that ends inside its last week or month ends that point's persons there too.
    date_to: pythonIsoformat(DateTime.min(bucketEnd(bucket, range.interval), range.to)),
  }));

  const build = (data: number[], breakdownValue: string | number | null): SeriesItem => {
    const label = breakdownValue === null || !plan ? entity.name : multipleEntitiesLabel(entity, displayLabel(breakdownValue, plan, context), filter);
    const smoothed = plan ? data : smooth(data, filter.smoothingIntervals);
    const item: SeriesItem = {
      action: entityToJson(entity),
      label,
      count: sum(smoothed),
      data: accumulate ? runningTotal(smoothed) : smoothed,
      labels,
      days,
    };
    if (breakdownValue !== null && plan) item.breakdown_value = breakdownValueOf(breakdownValue, plan);
    item.persons_urls = bucketDates.map((dates) => {
      const extra: JsonObject = { entity_id: entity.id, entity_type: entity.type, entity_math: entity.mathName, ...dates };
      if (breakdownValue !== null && plan) {
        extra.breakdown_value = item.breakdown_value;
        extra.breakdown_type = filter.breakdown?.rawType ?? 'event';
      } else extra.entity_order = entity.order;
      return { filter: extra, url: urls.url(extra) };
    });
    item.filter = filterJson;
    return item;
  };

  if (!plan) return [build(seriesData(rows, context), null)];
  const items = plan.values.map((value) =>
    build(
      seriesData(
        rows.filter((row) => String(row.breakdown_value) === String(value)),
        context,
      ),
      value,
    ),
  );
  return sortBreakdownItems(items, plan);
}

function multipleEntitiesLabel(entity: SeriesEntity, label: string, filter: InsightFilter): string {
  return filter.entities.length > 1 ? `${entity.name} - ${label}` : label;
}

/** Aggregate-display items of one entity: `aggregated_value` instead of data. */
export function aggregateItems(entity: SeriesEntity, rows: SeriesRow[], plan: BreakdownBuckets | null, context: ShapeContext): SeriesItem[] {
  const { filter } = context;
  const filterJson = filterToJson(filter, context.dates);
  const urls = new PersonsUrls(context.projectId, filterJson, randomBase62(8));
  const build = (value: number | null, breakdownValue: string | number | null): SeriesItem => {
    const extra: JsonObject = { entity_id: entity.id, entity_type: entity.type, entity_math: entity.mathName };
    const item: SeriesItem = {
      action: entityToJson(entity),
      label: breakdownValue === null || !plan ? entity.name : multipleEntitiesLabel(entity, displayLabel(breakdownValue, plan, context), filter),
      count: 0,
      data: [],
      labels: [],
      days: context.aggregateDays,
      aggregated_value: value,
    };
    if (breakdownValue !== null && plan) {
      item.breakdown_value = breakdownValueOf(breakdownValue, plan);
      extra.breakdown_value = item.breakdown_value;
      extra.breakdown_type = filter.breakdown?.rawType ?? 'event';
    } else extra.entity_order = entity.order;
    item.filter = filterJson;
    item.persons = { filter: extra, url: urls.url(extra) };
    return item;
  };
  if (!plan) return [build(rows[0]?.value ?? 0, null)];
  // Unlike time series, values without events get no item.
  const byValue = new Map(rows.map((row) => [String(row.breakdown_value), row.value]));
  const items = plan.values.filter((value) => byValue.has(String(value))).map((value) => build(byValue.get(String(value)) ?? null, value));
  return sortBreakdownItems(items, plan);
}

/** Compare items: the axis becomes `day 0`, `day 1`… and each item says which period it shows. */
export function markComparison<T extends { labels: string[] }>(items: T[], interval: Interval, period: 'current' | 'previous'): T[] {
  return items.map((item) => ({
    ...item,
    labels: item.labels.map((_, index) => `${interval} ${index}`),
    compare: true,
    compare_label: period,
  }));
}
