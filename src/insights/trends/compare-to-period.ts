import { DateTime } from 'luxon';
import { ValidationError } from '../../errors.js';
import { parseDate, type DateRangeInput, type QueryDateRange } from '../../query/date-range.js';

/**
 * `compare_to` (PostHog's `QueryCompareToDateRange`): the compared period starts at the
 * current range's start moved by a relative date (`-1w`, `-3d`, `-1m`…) or at an absolute
 * date, and is as long as the current range on the wall clock.
 */

/** Checks a `compare_to` value; a bad one is a 400 naming `compare_to`. */
export function parseCompareTo(text: string): void {
  if (!parseDate(text, 'UTC', DateTime.now())) {
    throw new ValidationError('compare_to', `Unable to parse compare_to "${text}": use a relative date such as -1w or -1m, or a date.`);
  }
}

function onWallClock(at: DateTime): DateTime {
  return at.setZone('UTC', { keepLocalTime: true });
}

/**
 * The dates of the compared period of a query of `dates` whose current range resolved to
 * `current`. Returns absolute bounds, resolved again like any other range, so its buckets start
 * where the current range's do.
 */
export function compareToPeriod(dates: DateRangeInput, compareTo: string, current: Pick<QueryDateRange, 'roundedFrom' | 'to' | 'timezone'>): DateRangeInput {
  const parsed = parseDate(compareTo, current.timezone, current.roundedFrom);
  if (!parsed) parseCompareTo(compareTo);
  const start = parsed!.at.setZone(current.timezone);
  const length = onWallClock(current.to).diff(onWallClock(current.roundedFrom));
  const end = onWallClock(start).plus(length).setZone(current.timezone, { keepLocalTime: true });
  return { ...dates, dateFrom: start.toISO({ includeOffset: true })!, dateTo: end.toISO({ includeOffset: true })! };
}
