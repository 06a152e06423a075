import type { DateTime } from 'luxon';
import { ValidationError } from '../../errors.js';
import { isJsonObject } from '../../util/json.js';
import { integerOrNull } from '../../util/safe-integer.js';
import { textOf } from '../../util/text.js';
import { parseDate, truncate, type ProjectClock } from '../../query/date-range.js';
import { decodeJsonParam, parseProperties, type PropertyGroup } from '../../query/property-filter-model.js';
import { isTruthyFlag } from '../../util/request-params.js';
import { parseEntities, parseEntityParam, type RawInput, type SeriesEntity } from '../filter-model.js';

export const RETENTION_PERIODS = { Hour: 'hour', Day: 'day', Week: 'week', Month: 'month' } as const;
export type RetentionPeriod = (typeof RETENTION_PERIODS)[keyof typeof RETENTION_PERIODS];

/** The period's name as PostHog labels cohorts with it (`Day 3`). */
export function periodName(period: RetentionPeriod): string {
  return Object.entries(RETENTION_PERIODS).find(([, value]) => value === period)![0];
}

export type RetentionBreakdownType = 'event' | 'person' | 'group';

/** One property a retention table breaks down by (legacy `breakdowns`). */
export interface RetentionBreakdown {
  type: RetentionBreakdownType;
  property: string;
  groupTypeIndex: number | null;
}

/** A legacy retention filter with its resolved window. */
export interface RetentionFilter {
  target: SeriesEntity;
  returning: SeriesEntity;
  firstTime: boolean;
  period: RetentionPeriod;
  totalIntervals: number;
  /** `date_to` as resolved, in the project timezone: what a persons URL carries. */
  dateTo: DateTime;
  /** Start of cohort 0. */
  start: DateTime;
  /** Inclusive end of the window, as PostHog's `timestamp <= date_to`. */
  end: DateTime;
  properties: PropertyGroup;
  filterTestAccounts: boolean;
  /** Rows per breakdown value instead of per cohort period; empty for the cohort table. */
  breakdowns: RetentionBreakdown[];
  /** Count groups of this type instead of persons. */
  aggregationGroupTypeIndex: number | null;
}

const DEFAULT_ENTITY = { id: '$pageview', type: 'events' };
/** More periods than anyone reads on one screen; keeps hourly windows from spanning years. */
const MAX_INTERVALS = 1000;
const BREAKDOWN_TYPES: RetentionBreakdownType[] = ['event', 'person', 'group'];

function parseRetentionEntity(value: unknown, attr: string): SeriesEntity | null {
  if (value === undefined || value === null || value === '') return null;
  return parseEntityParam(value, attr, `"${attr}" must be an object with id and type.`);
}

/** The returning entity: `returning_entity`, else the first of `events`/`actions` (older clients), else the target. */
function parseReturning(input: RawInput, target: SeriesEntity): SeriesEntity {
  const returning = parseRetentionEntity(input.returning_entity, 'returning_entity');
  if (returning) return returning;
  return parseEntities({ events: input.events, actions: input.actions })[0] ?? target;
}

function parsePeriod(value: unknown): RetentionPeriod {
  if (value === undefined || value === null || value === '') return 'day';
  const key = textOf(value).charAt(0).toUpperCase() + textOf(value).slice(1).toLowerCase();
  const period = RETENTION_PERIODS[key as keyof typeof RETENTION_PERIODS];
  if (!period) throw new ValidationError('period', `Period "${textOf(value)}" is not one of Hour, Day, Week, Month.`);
  return period;
}

function parseCount(value: unknown, attr: string, fallback: number): number {
  if (value === undefined || value === null || value === '') return fallback;
  const text = textOf(value).trim();
  if (!/^\d+$/.test(text)) throw new ValidationError(attr, `${attr} must be a non-negative integer.`);
  return Number(text);
}

function parseRetentionType(value: unknown): boolean {
  if (value === undefined || value === null || value === '') return false;
  if (value === 'retention_first_time') return true;
  if (value === 'retention_recurring' || value === 'retention') return false;
  throw new ValidationError('retention_type', 'retention_type must be retention_recurring or retention_first_time.');
}

function groupTypeIndex(value: unknown, attr: string): number | null {
  if (value === undefined || value === null || value === '') return null;
  const index = integerOrNull(value);
  if (index === null || index < 0 || index > 4) throw new ValidationError(attr, `${attr} must be a group type index between 0 and 4.`);
  return index;
}

function breakdownType(value: unknown, attr: string): RetentionBreakdownType {
  const type = value === undefined || value === null || value === '' ? 'event' : textOf(value);
  if (!(BREAKDOWN_TYPES as string[]).includes(type)) {
    throw new ValidationError(attr, `Retention breaks down by event, person or group properties, not "${type}".`);
  }
  return type as RetentionBreakdownType;
}

/**
 * `breakdowns` (`[{property, type}]`, as the legacy retention table sends them) or a plain
 * `breakdown` property (or list of properties) with `breakdown_type`.
 */
function parseBreakdowns(input: RawInput): RetentionBreakdown[] {
  const sharedType = input.breakdown_type;
  const sharedGroup = groupTypeIndex(input.breakdown_group_type_index, 'breakdown_group_type_index');
  const listed = decodeJsonParam(input.breakdowns, 'breakdowns');
  if (listed !== undefined && listed !== null && listed !== '') {
    if (!Array.isArray(listed)) throw new ValidationError('breakdowns', 'breakdowns must be a list of {property, type}.');
    return listed.map((item) => {
      if (!isJsonObject(item) || typeof item.property !== 'string' || item.property === '') {
        throw new ValidationError('breakdowns', 'Each breakdown needs a "property".');
      }
      const type = breakdownType(item.type ?? sharedType, 'breakdowns');
      const group = item.group_type_index === undefined ? sharedGroup : groupTypeIndex(item.group_type_index, 'breakdowns');
      return withGroup({ type, property: item.property, groupTypeIndex: group }, 'breakdowns');
    });
  }
  let single: unknown = input.breakdown;
  if (single === undefined || single === null || single === '') return [];
  if (typeof single === 'string' && single.startsWith('[')) single = decodeJsonParam(single, 'breakdown');
  const properties = Array.isArray(single) ? single : [single];
  if (!properties.every((property) => typeof property === 'string' && property !== '')) {
    throw new ValidationError('breakdown', 'A retention breakdown is a property name or a list of them.');
  }
  const type = breakdownType(sharedType, 'breakdown_type');
  return (properties as string[]).map((property) => withGroup({ type, property, groupTypeIndex: sharedGroup }, 'breakdown_group_type_index'));
}

function withGroup(breakdown: RetentionBreakdown, attr: string): RetentionBreakdown {
  if (breakdown.type === 'group' && breakdown.groupTypeIndex === null) {
    throw new ValidationError(attr, 'A group breakdown needs a group type index.', 'required');
  }
  return breakdown.type === 'group' ? breakdown : { ...breakdown, groupTypeIndex: null };
}

function plus(at: DateTime, period: RetentionPeriod, amount: number): DateTime {
  return at.plus({ [`${period}s`]: amount });
}

/**
 * Legacy window: the end is date_to moved on one period and truncated (to
 * the hour for hours, else to the day — months keep their day of month); cohort 0 starts
 * `total_intervals` periods before it (on the week start for weeks).
 */
function retentionWindow(input: RawInput, period: RetentionPeriod, total: number, clock: ProjectClock) {
  let dateTo: DateTime = clock.now.setZone(clock.timezone);
  if (input.date_to !== undefined && input.date_to !== null && input.date_to !== '') {
    const parsed = parseDate(textOf(input.date_to), clock.timezone, clock.now);
    if (!parsed) throw new ValidationError('date_to', `Unable to parse date_to "${textOf(input.date_to)}".`);
    dateTo = parsed.at;
  }
  const moved = plus(dateTo, period, 1);
  const end = period === 'hour' ? moved.startOf('hour') : moved.startOf('day');
  const back = plus(end, period, -total);
  const start = period === 'week' ? truncate(back, 'week', clock.weekStartDay) : back;
  return { dateTo, start, end };
}

export function parseRetentionFilter(input: RawInput, clock: ProjectClock): RetentionFilter {
  const target = parseRetentionEntity(input.target_entity, 'target_entity') ?? parseRetentionEntity(DEFAULT_ENTITY, 'target_entity')!;
  const period = parsePeriod(input.period);
  const totalIntervals = parseCount(input.total_intervals, 'total_intervals', 11);
  if (totalIntervals < 1 || totalIntervals > MAX_INTERVALS) {
    throw new ValidationError('total_intervals', `total_intervals must be between 1 and ${MAX_INTERVALS}.`);
  }
  return {
    target,
    returning: parseReturning(input, target),
    firstTime: parseRetentionType(input.retention_type),
    period,
    totalIntervals,
    ...retentionWindow(input, period, totalIntervals, clock),
    properties: parseProperties(input.properties ?? null),
    filterTestAccounts: input.filter_test_accounts === true || isTruthyFlag(input.filter_test_accounts),
    breakdowns: parseBreakdowns(input),
    aggregationGroupTypeIndex: groupTypeIndex(input.aggregation_group_type_index, 'aggregation_group_type_index'),
  };
}

/**
 * Which actors of a retention table: the row (`breakdown_values`, or the cohort index of
 * `selected_interval` when the table has no breakdown) and, optionally, the interval after it
 * they came back in (`selected_interval` beside `breakdown_values`, as a data point's URL carries).
 */
export interface RetentionSelection {
  /** The row's key: its breakdown values, or the cohort index as text. */
  key: string[];
  /** Only actors who appear at this interval of the row; null for the whole row. */
  interval: number | null;
  /** How many intervals of the row there are, and so how long `appearances` is. */
  length: number;
}

function decodeBreakdownValues(value: unknown): unknown[] | null {
  if (value === undefined || value === null || value === '') return null;
  let decoded: unknown = value;
  if (typeof value === 'string') {
    try {
      decoded = JSON.parse(value);
    } catch {
      decoded = value;
    }
  }
  return Array.isArray(decoded) ? decoded : [decoded];
}

function cohortIndex(value: unknown, attr: string, total: number): number {
  const text = textOf(value).trim();
  if (!/^\d+$/.test(text) || Number(text) >= total) {
    throw new ValidationError(attr, `The cohort must be one of 0 to ${total - 1} (total_intervals ${total}).`);
  }
  return Number(text);
}

function isPresent(value: unknown): boolean {
  return value !== undefined && value !== null && value !== '';
}

/**
 * The cohort a request selects in a table without breakdowns: the one value of
 * `breakdown_values` (`[2]`, as the table's URLs carry it), else `selected_interval`, else 0.
 */
export function selectedInterval(input: RawInput, totalIntervals: number): number {
  const values = decodeBreakdownValues(input.breakdown_values);
  if (values !== null) {
    if (values.length !== 1) throw new ValidationError('breakdown_values', 'breakdown_values holds the cohort index, e.g. [2].');
    return cohortIndex(values[0], 'breakdown_values', totalIntervals);
  }
  return isPresent(input.selected_interval) ? cohortIndex(input.selected_interval, 'selected_interval', totalIntervals) : 0;
}

export function parseRetentionSelection(input: RawInput, filter: RetentionFilter): RetentionSelection {
  const total = filter.totalIntervals;
  // Beside the row's breakdown_values, selected_interval names an interval of the row.
  const values = decodeBreakdownValues(input.breakdown_values);
  const intervalOf = (length: number) =>
    values !== null && isPresent(input.selected_interval) ? cohortIndex(input.selected_interval, 'selected_interval', length) : null;
  if (filter.breakdowns.length > 0) {
    if (values === null) throw new ValidationError('breakdown_values', 'A retention table with breakdowns needs breakdown_values.', 'required');
    if (values.length !== filter.breakdowns.length || values.some((value) => typeof value === 'object' && value !== null)) {
      throw new ValidationError('breakdown_values', `breakdown_values must hold one value for each of the ${filter.breakdowns.length} breakdowns.`);
    }
    return { key: values.map((value) => (value === null ? 'null' : textOf(value))), interval: intervalOf(total), length: total };
  }
  const cohort = selectedInterval(input, total);
  return { key: [String(cohort)], interval: intervalOf(total - cohort), length: total - cohort };
}
