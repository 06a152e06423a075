import type { DateTime } from 'luxon';
import { ValidationError } from '../../errors.js';
import { textOf } from '../../util/text.js';
import { parseDate, truncate, type ProjectClock } from '../../query/date-range.js';
import { isTruthyFlag, parseEntityParam, type RawInput, type SeriesEntity } from '../filter-model.js';
import { parseProperties, type PropertyGroup } from '../../query/property-filter-model.js';

export const RETENTION_PERIODS = { Hour: 'hour', Day: 'day', Week: 'week', Month: 'month' } as const;
export type RetentionPeriod = (typeof RETENTION_PERIODS)[keyof typeof RETENTION_PERIODS];

/** A legacy retention filter (insights.md §3.1) with its resolved window. */
export interface RetentionFilter {
  target: SeriesEntity;
  returning: SeriesEntity;
  firstTime: boolean;
  period: RetentionPeriod;
  totalIntervals: number;
  /** Start of cohort 0. */
  start: DateTime;
  /** End (exclusive) of the last period. */
  end: DateTime;
  properties: PropertyGroup;
  filterTestAccounts: boolean;
}

const DEFAULT_ENTITY = { id: '$pageview', type: 'events' };
/** More periods than anyone reads on one screen; keeps hourly windows from spanning years. */
const MAX_INTERVALS = 1000;

function parseRetentionEntity(value: unknown, attr: string): SeriesEntity | null {
  if (value === undefined || value === null || value === '') return null;
  return parseEntityParam(value, attr, `"${attr}" must be an object with id and type.`);
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

function plus(at: DateTime, period: RetentionPeriod, amount: number): DateTime {
  return at.plus({ [`${period}s`]: amount });
}

/**
 * Legacy window (insights.md §3.2): the end is date_to moved on one period and truncated (to
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
  return { start, end };
}

export function parseRetentionFilter(input: RawInput, clock: ProjectClock): RetentionFilter {
  const target = parseRetentionEntity(input.target_entity, 'target_entity') ?? parseRetentionEntity(DEFAULT_ENTITY, 'target_entity')!;
  const returning = parseRetentionEntity(input.returning_entity, 'returning_entity') ?? target;
  const period = parsePeriod(input.period);
  const totalIntervals = parseCount(input.total_intervals, 'total_intervals', 11);
  if (totalIntervals < 1 || totalIntervals > MAX_INTERVALS) {
    throw new ValidationError('total_intervals', `total_intervals must be between 1 and ${MAX_INTERVALS}.`);
  }
  return {
    target,
    returning,
    firstTime: input.retention_type === 'retention_first_time',
    period,
    totalIntervals,
    ...retentionWindow(input, period, totalIntervals, clock),
    properties: parseProperties(input.properties ?? null),
    filterTestAccounts: input.filter_test_accounts === true || isTruthyFlag(input.filter_test_accounts),
  };
}

/**
 * The cohort asked for: `selected_interval`, or the one value of `breakdown_values` the
 * retention table's row links carry (`[2]`).
 */
export function selectedInterval(input: RawInput, totalIntervals: number): number {
  let value: unknown = input.selected_interval;
  if ((value === undefined || value === '') && input.breakdown_values !== undefined) {
    let decoded: unknown = input.breakdown_values;
    try {
      decoded = typeof decoded === 'string' ? JSON.parse(decoded) : decoded;
    } catch {
      throw new ValidationError('breakdown_values', 'breakdown_values must be a JSON list.');
    }
    const [first] = Array.isArray(decoded) ? decoded : [decoded];
    if (!Number.isInteger(Number(first))) throw new ValidationError('breakdown_values', 'Breakdowns are not supported here; pass the cohort index.');
    value = first;
  }
  const selected = parseCount(value, 'selected_interval', 0);
  if (selected >= totalIntervals) {
    throw new ValidationError('selected_interval', `selected_interval must be below total_intervals (${totalIntervals}).`);
  }
  return selected;
}
