import { DateTime } from 'luxon';
import { ValidationError } from '../../errors.js';
import {
  filterDates,
  parseDate,
  previousPeriod,
  resolveDateRange,
  truncate,
  type DateRangeInput,
  type Interval,
  type ProjectClock,
} from '../../query/date-range.js';
import type { PropertyGroup } from '../../query/property-filter-model.js';
import { CUMULATIVE_DISPLAY, isTimeSeries, parseEntityParam, type InsightFilter, type SeriesEntity } from '../filter-model.js';
import type { CorrelationActorsSelection } from '../funnels/correlation-runner.js';
import { parseStepSelection, stepBreakdownKey } from '../funnels/funnel-actors.js';
import type { FunnelFilter } from '../funnels/funnel-filter.js';
import type { FunnelStepSelection } from '../funnels/funnel-runner.js';
import { parseFunnelTrendsSelection } from '../funnels/funnel-trends-selection.js';
import { LIFECYCLE_STATUSES, type LifecycleFilter, type LifecycleStatus } from '../lifecycle/lifecycle-filter.js';
import type { PathFilter } from '../paths/path-filter.js';
import { parseRetentionSelection, type RetentionFilter, type RetentionSelection } from '../retention/retention-filter.js';
import { STICKINESS_OPERATORS, type StickinessFilter, type StickinessOperator } from '../stickiness/stickiness-filter.js';
import { compareToPeriod } from '../trends/compare-to-period.js';
import { pythonIsoformat } from '../trends/persons-urls.js';
import { funnelCorrelationQueryToFilter } from './funnel-correlation-query.js';
import { funnelsQueryToFilter } from './funnels-query.js';
import {
  invalid,
  isAbsent,
  isObject,
  nodeProperties,
  optionalBoolean,
  optionalChoice,
  optionalInteger,
  optionalString,
  refuseUnless,
  type JsonObject,
} from './insight-node-fields.js';
import { lifecycleQueryToFilter } from './lifecycle-query.js';
import { pathsQueryToFilter } from './paths-query.js';
import { retentionQueryToFilter } from './retention-query.js';
import { stickinessQueryToFilter } from './stickiness-query.js';
import { trendsQueryToFilter } from './trends-query.js';

/**
 * The `source` of an ActorsQuery (InsightActorsQuery, FunnelsActorsQuery, StickinessActorsQuery,
 * FunnelCorrelationActorsQuery) as the data point whose actors it asks for: the insight's typed
 * filter, from the insight's own converter, and the point in the terms the actors services take.
 * Errors name the dotted path from the request root.
 */

interface SourceAt {
  /** Where the actors source node sits (`query.source`). */
  path: string;
  /** Where its insight sits (`query.source.source`). */
  insightPath: string;
}

export type ActorsSource =
  | { kind: 'persons' }
  | (SourceAt & { kind: 'trends'; filter: InsightFilter; entity: SeriesEntity; breakdownValue: string | null })
  | (SourceAt & { kind: 'lifecycle'; filter: LifecycleFilter; at: DateTime; status: LifecycleStatus })
  | (SourceAt & { kind: 'stickiness'; filter: StickinessFilter; entity: SeriesEntity; day: number; operator: StickinessOperator })
  | (SourceAt & { kind: 'retention'; filter: RetentionFilter; selection: RetentionSelection })
  | (SourceAt & { kind: 'paths'; filter: PathFilter })
  | (SourceAt & { kind: 'funnels'; filter: FunnelFilter; selection: FunnelStepSelection; breakdownValue: string[] | null; period: string | null })
  | (SourceAt & { kind: 'correlation'; funnel: FunnelFilter; selection: CorrelationActorsSelection; converted: boolean | null });

/** The actors source kinds, which also run alone as a query (answered as an ActorsQuery of them). */
export const ACTORS_SOURCE_KINDS = ['InsightActorsQuery', 'FunnelsActorsQuery', 'StickinessActorsQuery', 'FunnelCorrelationActorsQuery'] as const;

/**
 * A legacy parser's error (legacy parameter names) restated at the node's field, or at `fallback`
 * for a field the node does not have; errors already named by their path in the body pass.
 */
function restated<T>(read: () => T, fieldPaths: Readonly<Record<string, string>>, fallback: string): T {
  try {
    return read();
  } catch (error) {
    if (!(error instanceof ValidationError) || error.attr?.startsWith('query')) throw error;
    const path = error.attr === null ? undefined : fieldPaths[error.attr];
    throw new ValidationError(path ?? fallback, error.detail, error.code);
  }
}

function required(node: JsonObject, field: string, path: string): unknown {
  const value = node[field];
  if (isAbsent(value)) throw new ValidationError(`${path}.${field}`, 'This field is required.', 'required');
  return value;
}

/** `series`: the index of the insight's series the data point belongs to (default the first). */
function seriesIndex(node: JsonObject, path: string, count: number): number {
  const index = optionalInteger(node.series, `${path}.series`, 0) ?? 0;
  refuseUnless(index < count, `${path}.series`, `The insight has ${count} series: series must be from 0 to ${count - 1}.`);
  return index;
}

/** A breakdown value as the insight names it: text, a number, or a list of one of them. */
function breakdownText(value: unknown, at: string): string | null {
  if (isAbsent(value)) return null;
  const single = Array.isArray(value) && value.length === 1 ? value[0] : value;
  if (typeof single === 'string' || typeof single === 'number' || typeof single === 'boolean') return String(single);
  if (single === null) return '';
  invalid(at, 'A breakdown value is text, a number, or a list of one of them.');
}

/** Trends only: `compare` names the period; with another insight, only the current one is known. */
function refuseCompare(node: JsonObject, path: string): void {
  const compare = optionalChoice(node.compare, `${path}.compare`, ['current', 'previous'] as const);
  refuseUnless(compare !== 'previous', `${path}.compare`, 'Tally lists the actors of the previous period for trends only.');
}

/** The end of a bucket as the trend's persons URLs give it. */
function bucketEnd(bucket: DateTime, interval: Interval): DateTime {
  switch (interval) {
    case 'month':
      return bucket.plus({ months: 1 }).minus({ days: 1 }).startOf('day');
    case 'week':
      return bucket.plus({ days: 6 }).startOf('day');
    case 'hour':
      return bucket.plus({ hours: 1 });
    case 'day':
      return bucket.endOf('day');
  }
}

/**
 * The dates of one trend data point, as that point's persons URL carries them: the bucket holding
 * `day` (from the range's start for cumulative displays), up to the bucket's end or the range's.
 * With `compare: previous`, `day` names the current period's bucket and the point is the bucket at
 * the same place in the compared period.
 */
function trendPointDates(filter: InsightFilter, compareTo: string | null, node: JsonObject, path: string, clock: ProjectClock): DateRangeInput {
  const insightPath = `${path}.source`;
  const legacyDates = {
    date_from: `${insightPath}.dateRange.date_from`,
    date_to: `${insightPath}.dateRange.date_to`,
    compare_to: `${insightPath}.compareFilter.compare_to`,
  };
  const at = `${path}.day`;
  const day = node.day;
  if (isAbsent(day)) throw new ValidationError(at, 'A trends actors query needs the day of the data point.', 'required');
  if (typeof day !== 'string') invalid(at, "Must be the start of a bucket, as the insight's days give it.");
  const parsed = parseDate(day, clock.timezone, clock.now);
  if (!parsed) invalid(at, `Unable to parse day "${day}".`);
  const { interval } = filter.dates;
  const compare = optionalChoice(node.compare, `${path}.compare`, ['current', 'previous'] as const);
  let dates = filter.dates;
  let range = restated(() => resolveDateRange(dates, clock), legacyDates, insightPath);
  let bucket = truncate(parsed.at, interval, clock.weekStartDay);
  if (compare === 'previous') {
    const index = range.buckets.findIndex((start) => start.toMillis() === bucket.toMillis());
    refuseUnless(index >= 0, at, `"${day}" is not a day of the insight's range.`);
    const current = range;
    dates = restated(
      () => (compareTo === null ? previousPeriod(filter.dates, clock) : compareToPeriod(filter.dates, compareTo, current)),
      legacyDates,
      insightPath,
    );
    range = restated(() => resolveDateRange(dates, clock), legacyDates, insightPath);
    const compared = range.buckets[index];
    if (!compared) invalid(at, `"${day}" has no counterpart in the compared period.`);
    bucket = compared;
  }
  const rangeStart = filter.display === CUMULATIVE_DISPLAY ? filterDates(dates, clock).from : null;
  return {
    ...dates,
    dateFrom: pythonIsoformat(rangeStart ?? bucket),
    dateTo: pythonIsoformat(DateTime.min(bucketEnd(bucket, interval), range.to)),
  };
}

function trendsSource(node: JsonObject, path: string, clock: ProjectClock): ActorsSource {
  const insightPath = `${path}.source`;
  const plan = trendsQueryToFilter(node.source, insightPath);
  const { filter } = plan;
  const entity = filter.entities[seriesIndex(node, path, filter.entities.length)]!;
  // Aggregate displays have one value over the whole range: their persons are the range's.
  let dates = filter.dates;
  if (isTimeSeries(filter)) dates = trendPointDates(filter, plan.compareTo, node, path, clock);
  else refuseCompare(node, path);
  return {
    kind: 'trends',
    path,
    insightPath,
    filter: { ...filter, dates, compare: false },
    entity,
    breakdownValue: breakdownText(node.breakdown, `${path}.breakdown`),
  };
}

function lifecycleSource(node: JsonObject, path: string, clock: ProjectClock): ActorsSource {
  const insightPath = `${path}.source`;
  const { filter } = lifecycleQueryToFilter(node.source, insightPath);
  refuseCompare(node, path);
  const day = required(node, 'day', path);
  if (typeof day !== 'string') invalid(`${path}.day`, "Must be the start of a period, as the insight's days give it.");
  const parsed = parseDate(day, clock.timezone, clock.now);
  if (!parsed) invalid(`${path}.day`, `Unable to parse day "${day}".`);
  required(node, 'status', path);
  const status = optionalChoice(node.status, `${path}.status`, LIFECYCLE_STATUSES)!;
  return { kind: 'lifecycle', path, insightPath, filter, at: parsed.at, status };
}

function stickinessSource(node: JsonObject, path: string): ActorsSource {
  const insightPath = `${path}.source`;
  const plan = stickinessQueryToFilter(node.source, insightPath);
  refuseCompare(node, path);
  const day = required(node, 'day', path);
  if (typeof day !== 'number' || !Number.isInteger(day) || day < 1) invalid(`${path}.day`, 'Must be the number of intervals, at least 1.');
  const entity = plan.filter.series[seriesIndex(node, path, plan.filter.series.length)]!;
  // A cumulative data point counts the actors of that many intervals or more.
  const operator = optionalChoice(node.operator, `${path}.operator`, STICKINESS_OPERATORS) ?? (plan.cumulative ? 'gte' : 'exact');
  return { kind: 'stickiness', path, insightPath, filter: plan.filter, entity, day, operator };
}

function retentionSource(node: JsonObject, path: string, clock: ProjectClock): ActorsSource {
  const insightPath = `${path}.source`;
  const { filter } = retentionQueryToFilter(node.source, insightPath, clock);
  refuseUnless(
    filter.aggregationGroupTypeIndex === null,
    `${insightPath}.aggregation_group_type_index`,
    'Tally lists persons in actors queries: the actors of a retention by groups are not supported yet.',
  );
  refuseCompare(node, path);
  const interval = optionalInteger(node.interval, `${path}.interval`, 0);
  let breakdown: unknown = node.breakdown;
  if (filter.breakdowns.length > 0 && isAbsent(breakdown))
    throw new ValidationError(`${path}.breakdown`, 'A retention with a breakdown needs the breakdown value of the row.', 'required');
  if (filter.breakdowns.length === 0) breakdown = undefined;
  else if (!Array.isArray(breakdown)) breakdown = [breakdown];
  const selection = restated(
    () =>
      parseRetentionSelection(
        breakdown === undefined ? { selected_interval: interval ?? 0 } : { breakdown_values: breakdown, selected_interval: interval ?? undefined },
        filter,
      ),
    { breakdown_values: `${path}.breakdown`, selected_interval: `${path}.interval` },
    path,
  );
  return { kind: 'retention', path, insightPath, filter, selection };
}

function pathsSource(node: JsonObject, path: string): ActorsSource {
  const insightPath = `${path}.source`;
  const { filter } = pathsQueryToFilter(node.source, insightPath);
  refuseCompare(node, path);
  return { kind: 'paths', path, insightPath, filter };
}

/** `funnelStep`: N reached step N (1-based) or further, −N dropped off before step N; 0 and −1 name no step. */
function funnelSelection(node: JsonObject, path: string, steps: number): FunnelStepSelection {
  const custom = node.funnelCustomSteps;
  if (!isAbsent(custom)) {
    return restated(() => parseStepSelection({ funnel_custom_steps: custom }, steps), { funnel_custom_steps: `${path}.funnelCustomSteps` }, path);
  }
  const step = required(node, 'funnelStep', path);
  if (typeof step !== 'number' || !Number.isInteger(step)) invalid(`${path}.funnelStep`, 'Must be an integer.');
  refuseUnless(step !== 0 && step !== -1, `${path}.funnelStep`, `funnelStep must be a step of the funnel: 1 to ${steps}, or -2 to -${steps} for drop-offs.`);
  return restated(() => parseStepSelection({ funnel_step: step }, steps), { funnel_step: `${path}.funnelStep` }, path);
}

function funnelsSource(node: JsonObject, path: string, clock: ProjectClock): ActorsSource {
  const insightPath = `${path}.source`;
  const filter = funnelsQueryToFilter(node.source, insightPath);
  refuseCompare(node, path);
  optionalBoolean(node.includeRecordings, `${path}.includeRecordings`);
  const stepBreakdown = isAbsent(node.funnelStepBreakdown) ? node.breakdown : node.funnelStepBreakdown;
  const breakdownValue = restated(() => stepBreakdownKey(stepBreakdown, filter.breakdown), { funnel_step_breakdown: `${path}.funnelStepBreakdown` }, path);
  if (filter.vizType !== 'trends') {
    return { kind: 'funnels', path, insightPath, filter, selection: funnelSelection(node, path, filter.steps.length), breakdownValue, period: null };
  }
  const entrance = optionalString(node.funnelTrendsEntrancePeriodStart, `${path}.funnelTrendsEntrancePeriodStart`);
  if (entrance === null) throw new ValidationError(`${path}.funnelTrendsEntrancePeriodStart`, 'Funnel trends actors need the entrance period.', 'required');
  const dropOff = optionalBoolean(node.funnelTrendsDropOff, `${path}.funnelTrendsDropOff`);
  const trends = restated(
    () =>
      parseFunnelTrendsSelection(
        { entrance_period_start: entrance, drop_off: String(dropOff), funnel_from_step: filter.fromStep, funnel_to_step: filter.toStep },
        filter,
        clock,
      ),
    {
      entrance_period_start: `${path}.funnelTrendsEntrancePeriodStart`,
      funnel_from_step: `${insightPath}.funnelsFilter.funnelFromStep`,
      funnel_to_step: `${insightPath}.funnelsFilter.funnelToStep`,
    },
    path,
  );
  return {
    kind: 'funnels',
    path,
    insightPath,
    filter,
    selection: { kind: 'between', min: trends.minSteps, max: trends.maxSteps },
    breakdownValue,
    period: trends.period,
  };
}

/** `funnelCorrelationPersonEntity`: the EventsNode or ActionsNode (with its properties) of an events correlation row. */
function correlationEntity(value: unknown, at: string): SeriesEntity {
  if (isAbsent(value)) throw new ValidationError(at, 'No entity for persons specified', 'required');
  if (!isObject(value)) invalid(at, 'Must be an EventsNode or an ActionsNode.');
  const kind = value.kind ?? 'EventsNode';
  if (kind !== 'EventsNode' && kind !== 'ActionsNode') invalid(`${at}.kind`, 'Must be an EventsNode or an ActionsNode.');
  const properties = nodeProperties(value.properties, `${at}.properties`);
  if (kind === 'EventsNode') {
    const event = optionalString(value.event, `${at}.event`);
    return { ...parseEntityParam({ id: event, type: 'events' }, at, 'Must be an EventsNode.'), properties };
  }
  if (typeof value.id !== 'number' || !Number.isInteger(value.id)) invalid(`${at}.id`, 'An ActionsNode needs the integer id of an action.');
  return { ...parseEntityParam({ id: value.id, type: 'actions' }, at, 'Must be an ActionsNode.'), properties };
}

function correlationSource(node: JsonObject, path: string): ActorsSource {
  const insightPath = `${path}.source`;
  const filter = funnelCorrelationQueryToFilter(node.source, insightPath);
  const converted = node.funnelCorrelationPersonConverted;
  if (!isAbsent(converted) && typeof converted !== 'boolean') invalid(`${path}.funnelCorrelationPersonConverted`, 'Must be true, false or absent.');
  let selection: CorrelationActorsSelection;
  if (filter.type === 'properties') {
    const at = `${path}.funnelCorrelationPropertyValues`;
    const properties: PropertyGroup = nodeProperties(node.funnelCorrelationPropertyValues, at);
    if (properties.values.length === 0) throw new ValidationError(at, 'Property Correlation expects atleast one Property to get persons for', 'required');
    selection = { kind: 'properties', properties };
  } else {
    selection = { kind: 'event', entity: correlationEntity(node.funnelCorrelationPersonEntity, `${path}.funnelCorrelationPersonEntity`) };
  }
  return { kind: 'correlation', path, insightPath, funnel: filter.funnel, selection, converted: (converted as boolean | null | undefined) ?? null };
}

/** The insight kinds an InsightActorsQuery lists the actors of. */
const INSIGHT_SOURCES = ['TrendsQuery', 'LifecycleQuery', 'StickinessQuery', 'RetentionQuery', 'PathsQuery', 'FunnelsQuery'] as const;

/** What source node kind holds what insight kind. */
const SOURCE_INSIGHTS: Readonly<Record<(typeof ACTORS_SOURCE_KINDS)[number], readonly string[]>> = {
  InsightActorsQuery: INSIGHT_SOURCES,
  FunnelsActorsQuery: ['FunnelsQuery'],
  StickinessActorsQuery: ['StickinessQuery'],
  FunnelCorrelationActorsQuery: ['FunnelCorrelationQuery'],
};

/** Translates the actors source node at `path` (its insight at `<path>.source`) into the data point it asks for. */
export function actorsSource(node: unknown, path: string, clock: ProjectClock): ActorsSource {
  if (!isObject(node)) invalid(path, 'Must be a query object.');
  const kind = node.kind;
  if (typeof kind !== 'string' || !Object.hasOwn(SOURCE_INSIGHTS, kind)) {
    invalid(`${path}.kind`, `The source of an ActorsQuery is one of ${ACTORS_SOURCE_KINDS.join(', ')}.`);
  }
  const insight = node.source;
  if (isAbsent(insight)) throw new ValidationError(`${path}.source`, 'This field is required.', 'required');
  if (!isObject(insight)) invalid(`${path}.source`, 'Must be a query object.');
  const insightKinds = SOURCE_INSIGHTS[kind as keyof typeof SOURCE_INSIGHTS];
  if (typeof insight.kind !== 'string' || !insightKinds.includes(insight.kind)) {
    invalid(`${path}.source.kind`, `The source of a ${kind} is one of ${insightKinds.join(', ')}.`);
  }
  switch (insight.kind) {
    case 'TrendsQuery':
      return trendsSource(node, path, clock);
    case 'LifecycleQuery':
      return lifecycleSource(node, path, clock);
    case 'StickinessQuery':
      return stickinessSource(node, path);
    case 'RetentionQuery':
      return retentionSource(node, path, clock);
    case 'PathsQuery':
      return pathsSource(node, path);
    case 'FunnelsQuery':
      return funnelsSource(node, path, clock);
    default:
      return correlationSource(node, path);
  }
}

/** Whether the source lists its actors newest person first (trends order by value, retention by appearances). */
export function listsNewestFirst(source: ActorsSource): boolean {
  return source.kind !== 'trends' && source.kind !== 'retention';
}
