import { DateTime, type DurationLikeObject } from 'luxon';
import { ValidationError } from '../errors.js';
import { DAY_MS, HOUR_MS, zeroPad } from '../util/time.js';

/**
 * Dates of insight queries with PostHog's legacy semantics: absolute and relative date strings,
 * truncation and rounding of the range, one bucket per interval, the project timezone and week
 * start. Pure: "now" and the earliest event time are handed in.
 */

export const INTERVALS = ['hour', 'day', 'week', 'month'] as const;
export type Interval = (typeof INTERVALS)[number];

/** 0 = weeks start on Sunday (PostHog's default), 1 = Monday. */
export type WeekStartDay = 0 | 1;

export interface ProjectClock {
  timezone: string;
  weekStartDay: WeekStartDay;
  now: DateTime;
}

/** What a relative string such as `-7d` or `-1mStart` asks for (PostHog's "delta mapping"). */
export interface RelativeDate {
  unit: 'h' | 'd' | 'w' | 'm' | 'q' | 'y' | 'M' | 's';
  amount: number | null;
  position: 'Start' | 'End' | null;
}

export interface ParsedDate {
  at: DateTime;
  relative: RelativeDate | null;
  /** `YYYY-MM-DD` without a time of day. */
  dateOnly: boolean;
}

const ABSOLUTE = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/;
const RELATIVE = /^-?(\d+)?([hdwmqysM])(Start|End)?$/;

function parseAbsolute(text: string, zone: string): ParsedDate | null {
  const match = ABSOLUTE.exec(text);
  if (!match) return null;
  const [, year, month, day, hour, minute, second, fraction, offset] = match;
  const hasTime = hour !== undefined;
  const fields = {
    year: Number(year),
    month: Number(month),
    day: Number(day),
    hour: hasTime ? Number(hour) : 0,
    minute: hasTime ? Number(minute) : 0,
    second: second ? Number(second) : 0,
    millisecond: fraction ? Math.floor(Number(`0.${fraction}`) * 1000) : 0,
  };
  const sourceZone = offset ? (offset === 'Z' ? 'UTC' : `UTC${normaliseOffset(offset)}`) : zone;
  const parsed = DateTime.fromObject(fields, { zone: sourceZone });
  if (!parsed.isValid || parsed.day !== fields.day || parsed.hour !== fields.hour) return null;
  return { at: parsed.setZone(zone), relative: null, dateOnly: !hasTime };
}

function normaliseOffset(offset: string): string {
  const digits = offset.slice(1).replace(':', '');
  const hours = digits.slice(0, 2);
  const minutes = digits.slice(2) || '00';
  return `${offset[0]}${hours}:${minutes}`;
}

/** Units whose length never changes in a fixed-offset zone. */
const FIXED_UNIT_MILLISECONDS: Readonly<Record<string, number>> = {
  weeks: 7 * DAY_MS,
  days: DAY_MS,
  hours: HOUR_MS,
  minutes: 60_000,
  seconds: 1000,
  milliseconds: 1,
};

/** A duration of whole weeks, days, … milliseconds in milliseconds; null when it has months, quarters or years. */
function fixedMilliseconds(delta: DurationLikeObject): number | null {
  let total = 0;
  for (const [unit, amount] of Object.entries(delta)) {
    const unitMilliseconds = FIXED_UNIT_MILLISECONDS[unit];
    if (unitMilliseconds === undefined || !Number.isInteger(amount)) return null;
    total += (amount as number) * unitMilliseconds;
  }
  return total;
}

/**
 * Calendar arithmetic on the wall clock, as Python does on aware datetimes. In a fixed-offset
 * zone (UTC) luxon's own arithmetic is that already, and for units of fixed length it is
 * arithmetic on the instant, at a tenth of luxon's cost.
 */
function wallClockMinus(at: DateTime, delta: DurationLikeObject): DateTime {
  // As in luxon's own arithmetic, a time out of its range stays invalid, whatever is added.
  if (!at.isValid) return at;
  if (at.zone.isUniversal) {
    const milliseconds = fixedMilliseconds(delta);
    return milliseconds === null ? at.minus(delta) : instantPlus(at, -milliseconds);
  }
  const local = DateTime.fromObject(wallClock(at), { zone: 'UTC' }).minus(delta);
  return local.isValid ? DateTime.fromObject(wallClock(local), { zone: at.zone }) : local;
}

function wallClockPlus(at: DateTime, delta: DurationLikeObject): DateTime {
  if (!at.isValid) return at;
  if (at.zone.isUniversal) {
    const milliseconds = fixedMilliseconds(delta);
    return milliseconds === null ? at.plus(delta) : instantPlus(at, milliseconds);
  }
  const local = DateTime.fromObject(wallClock(at), { zone: 'UTC' }).plus(delta);
  return local.isValid ? DateTime.fromObject(wallClock(local), { zone: at.zone }) : local;
}

/**
 * `at` moved by a number of milliseconds, as `at.plus(milliseconds)`: right in any zone, as time
 * rather than calendar arithmetic. It builds the result from the instant, skipping luxon's
 * duration normalisation, which costs ten times as much; trends do it for every bucket. Out of
 * luxon's range, `plus` itself answers, so the invalid time keeps its zone as luxon's does.
 */
export function instantPlus(at: DateTime, milliseconds: number): DateTime {
  const moved = DateTime.fromMillis(at.toMillis() + milliseconds, {
    zone: at.zone,
    locale: at.locale ?? undefined,
    numberingSystem: at.numberingSystem ?? undefined,
    outputCalendar: at.outputCalendar ?? undefined,
  });
  return moved.isValid ? moved : at.plus(milliseconds);
}

/** Python subtracts aware datetimes of one zone on the wall clock, ignoring DST offsets. */
function wallClockDifference(from: DateTime, to: DateTime): DurationLikeObject {
  const milliseconds = DateTime.fromObject(wallClock(to), { zone: 'UTC' })
    .diff(DateTime.fromObject(wallClock(from), { zone: 'UTC' }))
    .toMillis();
  return { milliseconds };
}

function wallClock(at: DateTime) {
  const { year, month, day, hour, minute, second, millisecond } = at;
  return { year, month, day, hour, minute, second, millisecond };
}

/** Applies a relative date to now the way dateutil's relativedelta subtraction does. */
function applyRelative(now: DateTime, relative: RelativeDate): DateTime {
  const amount = relative.amount ?? 0;
  const pinned: { month?: number; day?: number; hour?: number; minute?: number; second?: number; millisecond?: number } = {};
  const delta: DurationLikeObject = {};
  let years = 0;
  let months = 0;
  const start = relative.position === 'Start';
  const end = relative.position === 'End';
  switch (relative.unit) {
    case 'h':
      delta.hours = amount;
      if (start) Object.assign(pinned, { minute: 0, second: 0, millisecond: 0 });
      if (end) Object.assign(pinned, { minute: 59, second: 59, millisecond: 999 });
      break;
    case 'd':
      delta.days = amount;
      if (start) Object.assign(pinned, { hour: 0, minute: 0, second: 0, millisecond: 0 });
      if (end) Object.assign(pinned, { hour: 23, minute: 59, second: 59, millisecond: 999 });
      break;
    case 'w':
      delta.weeks = amount;
      break;
    case 'm':
      months = amount;
      if (start) pinned.day = 1;
      if (end) pinned.day = 31;
      break;
    case 'q':
      delta.weeks = 13 * amount;
      break;
    case 'y':
      years = amount;
      if (start) Object.assign(pinned, { month: 1, day: 1 });
      if (end) pinned.day = 31;
      break;
    case 'M':
      delta.minutes = amount;
      break;
    case 's':
      delta.seconds = amount;
      break;
  }
  const monthIndex = now.year * 12 + (pinned.month ?? now.month) - 1 - years * 12 - months;
  const year = Math.floor(monthIndex / 12);
  const month = (monthIndex % 12) + 1;
  const daysInMonth = DateTime.fromObject({ year, month, day: 1 }, { zone: 'UTC' }).daysInMonth ?? 31;
  const moved = DateTime.fromObject(
    {
      ...wallClock(now),
      year,
      month,
      day: Math.min(pinned.day ?? now.day, daysInMonth),
      hour: pinned.hour ?? now.hour,
      minute: pinned.minute ?? now.minute,
      second: pinned.second ?? now.second,
      millisecond: pinned.millisecond ?? now.millisecond,
    },
    { zone: now.zone },
  );
  return wallClockMinus(moved, delta);
}

/**
 * Parses an absolute (`2020-01-02`, `2020-1-2`, ISO date-time with or without offset; no offset
 * means the project timezone) or relative (`-7d`, `-24h`, `mStart`, `-1mEnd`, …) date, in `zone`.
 * Returns null when the text is neither.
 */
export function parseDate(text: string, zone: string, now: DateTime): ParsedDate | null {
  const trimmed = text.trim();
  const absolute = parseAbsolute(trimmed, zone);
  if (absolute) return absolute;
  const match = RELATIVE.exec(trimmed);
  if (!match) return null;
  const relative: RelativeDate = {
    unit: match[2] as RelativeDate['unit'],
    amount: match[1] === undefined ? null : Number(match[1]),
    position: (match[3] as RelativeDate['position'] | undefined) ?? null,
  };
  const at = applyRelative(now.setZone(zone), relative);
  // So many units back that no date is there (luxon's range is ±100 million days): not a date.
  return at.isValid ? { at, relative, dateOnly: false } : null;
}

/** True when the relative date subtracts hours, which makes PostHog treat the bound as hourly. */
function subtractsHours(parsed: ParsedDate | null): boolean {
  return parsed?.relative?.unit === 'h' && parsed.relative.amount !== null;
}

export function truncate(at: DateTime, interval: Interval, weekStartDay: WeekStartDay): DateTime {
  switch (interval) {
    case 'hour':
      return at.startOf('hour');
    case 'day':
      return at.startOf('day');
    case 'month':
      return at.startOf('month');
    case 'week': {
      const day = at.startOf('day');
      const daysSinceStart = weekStartDay === 1 ? day.weekday - 1 : day.weekday % 7;
      return wallClockMinus(day, { days: daysSinceStart });
    }
  }
}

/** The start of the bucket after `bucket`, on the wall clock of the project timezone. */
export function nextBucket(bucket: DateTime, interval: Interval): DateTime {
  switch (interval) {
    case 'hour':
      return instantPlus(bucket, HOUR_MS);
    case 'day':
      return wallClockPlus(bucket, { days: 1 });
    case 'week':
      return wallClockPlus(bucket, { weeks: 1 });
    case 'month':
      return wallClockPlus(bucket, { months: 1 });
  }
}

export interface DateRangeInput {
  dateFrom: string | null;
  dateTo: string | null;
  interval: Interval;
  explicitDate: boolean;
}

/** The effective range of a query: what SQL filters on and which buckets the axis shows. */
export interface QueryDateRange {
  interval: Interval;
  timezone: string;
  weekStartDay: WeekStartDay;
  /** Lower bound after truncation, before rounding. */
  from: DateTime;
  /** Inclusive upper bound. */
  to: DateTime;
  /** Lower bound rounded down to the start of its interval when PostHog rounds (always for week/month). */
  roundedFrom: DateTime;
  /** Start of every bucket from trunc(from) to trunc(to), ascending. */
  buckets: DateTime[];
}

/** Generous, but stops `date_from=all` with an hourly interval from building a million-point axis. */
export const MAX_BUCKETS = 20_000;

const SECONDS_IN_INTERVAL: Record<Interval, number> = {
  hour: 3600,
  day: 86_400,
  week: 604_800,
  month: 2_592_000,
};

/** True when `date_from` needs the project's earliest event (`all`). */
export function needsEarliestEvent(input: Pick<DateRangeInput, 'dateFrom'>): boolean {
  return input.dateFrom === 'all';
}

function parseOrReject(text: string, attr: 'date_from' | 'date_to', clock: ProjectClock): ParsedDate {
  const parsed = parseDate(text, clock.timezone, clock.now);
  if (!parsed) throw new ValidationError(attr, `Unable to parse ${attr} "${text}".`);
  return parsed;
}

/**
 * The range PostHog's legacy QueryDateRange computes: date_from truncated to the day (or hour
 * when hourly), date_to extended to the end of its day (or hour), then the lower bound rounded
 * to the interval start. `earliestEvent` serves `date_from=all`.
 */
export function resolveDateRange(input: DateRangeInput, clock: ProjectClock, earliestEvent: DateTime | null = null): QueryDateRange {
  const zone = clock.timezone;
  const now = clock.now.setZone(zone);
  const { interval, explicitDate } = input;

  let from: DateTime;
  let parsedFrom: ParsedDate | null = null;
  if (input.dateFrom === 'all') {
    from = (earliestEvent ?? now.minus({ weeks: 1 })).setZone(zone);
  } else if (input.dateFrom !== null) {
    parsedFrom = parseOrReject(input.dateFrom, 'date_from', clock);
    from = parsedFrom.at;
  } else {
    from = wallClockMinus(now.startOf('day'), { days: 7 });
  }
  if (!explicitDate) from = interval === 'hour' || subtractsHours(parsedFrom) ? from.startOf('hour') : from.startOf('day');

  let to: DateTime;
  if (input.dateTo === null && interval === 'hour') {
    to = now.plus({ minutes: 1 });
  } else {
    const parsed = input.dateTo === null ? null : parseOrReject(input.dateTo, 'date_to', clock);
    to = parsed?.at ?? now;
    if (!explicitDate) to = interval === 'hour' || subtractsHours(parsed) ? to.endOf('hour') : to.endOf('day');
  }

  const spansTwoIntervals = to.diff(from, 'seconds').seconds >= SECONDS_IN_INTERVAL[interval] * 2;
  const shouldRound = !explicitDate && (interval === 'week' || interval === 'month' || spansTwoIntervals);
  const roundedFrom = shouldRound ? truncate(from, interval, clock.weekStartDay) : from;

  return {
    interval,
    timezone: zone,
    weekStartDay: clock.weekStartDay,
    from,
    to,
    roundedFrom,
    buckets: bucketsBetween(from, to, interval, clock.weekStartDay),
  };
}

function bucketsBetween(from: DateTime, to: DateTime, interval: Interval, weekStartDay: WeekStartDay): DateTime[] {
  const last = truncate(to, interval, weekStartDay);
  const buckets: DateTime[] = [];
  for (let bucket = truncate(from, interval, weekStartDay); bucket <= last; bucket = nextBucket(bucket, interval)) {
    buckets.push(bucket);
    if (buckets.length > MAX_BUCKETS) {
      throw new ValidationError('interval', `The date range has more than ${MAX_BUCKETS} intervals; use a larger interval.`);
    }
  }
  return buckets;
}

const MONTH_ABBREVIATIONS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * `2020-01-01` (`2020-01-01 13:00:00` for hours): the `days` entries. Written from the fields,
 * as `formatLabel`, not with `toFormat`: an axis formats every bucket of every series.
 */
export function formatDay(bucket: DateTime, interval: Interval): string {
  const day = `${zeroPad(bucket.year, 4)}-${zeroPad(bucket.month)}-${zeroPad(bucket.day)}`;
  return interval === 'hour' ? `${day} ${zeroPad(bucket.hour)}:${zeroPad(bucket.minute)}:${zeroPad(bucket.second)}` : day;
}

/** `1-Jan-2020` (`1-Jan-2020 13:00` for hours): the legacy `labels` entries. */
export function formatLabel(bucket: DateTime, interval: Interval): string {
  const day = `${bucket.day}-${MONTH_ABBREVIATIONS[bucket.month - 1]}-${zeroPad(bucket.year, 4)}`;
  return interval === 'hour' ? `${day} ${zeroPad(bucket.hour)}:${zeroPad(bucket.minute)}` : day;
}

/**
 * The Filter-level dates PostHog's compare and aggregate displays use: relative dates truncated
 * (to the hour when they subtract hours), date_to unset meaning now, and a bare date_to date
 * meaning the end of that day. date_from is null for `all`.
 */
export interface FilterDates {
  from: DateTime | null;
  fromRelative: RelativeDate | null;
  to: DateTime;
  toRelative: RelativeDate | null;
}

export function filterDates(input: DateRangeInput, clock: ProjectClock): FilterDates {
  const now = clock.now.setZone(clock.timezone);
  let from: DateTime | null = null;
  let fromRelative: RelativeDate | null = null;
  if (input.dateFrom === null) {
    from = wallClockMinus(now.startOf('day'), { days: 7 });
  } else if (input.dateFrom !== 'all') {
    const parsed = parseOrReject(input.dateFrom, 'date_from', clock);
    fromRelative = parsed.relative;
    from = truncateRelative(parsed);
  }
  let to: DateTime = now;
  let toRelative: RelativeDate | null = null;
  if (input.dateTo !== null) {
    const parsed = parseOrReject(input.dateTo, 'date_to', clock);
    toRelative = parsed.relative;
    to = parsed.dateOnly ? parsed.at.endOf('day') : truncateRelative(parsed);
  }
  return { from, fromRelative, to, toRelative };
}

function truncateRelative(parsed: ParsedDate): DateTime {
  if (!parsed.relative) return parsed.at;
  return subtractsHours(parsed) ? parsed.at.startOf('hour') : parsed.at.startOf('day');
}

/**
 * The previous period of `compare`: as long as the current one, ending where it starts, with
 * the times of day of the current bounds; `-7d`, `-14d`… on days move one day later so that
 * weeks line up. Returns absolute ISO bounds to resolve like any other range.
 */
export function previousPeriod(input: DateRangeInput, clock: ProjectClock): DateRangeInput {
  const dates = filterDates(input, clock);
  if (!dates.from) throw new ValidationError('date_from', 'You need date_from and date_to to compare');
  const from = dates.from;
  const to = dates.to;
  const diff = wallClockDifference(from, to);
  let previousFrom = wallClockMinus(from, diff);
  let previousTo: DateTime;
  if (input.interval === 'hour') {
    previousFrom = previousFrom.set({ hour: from.hour, minute: from.minute, second: from.second, millisecond: from.millisecond });
    previousTo = wallClockPlus(previousFrom, diff).set({
      minute: to.minute,
      second: to.second,
      millisecond: to.millisecond,
    });
  } else {
    previousFrom = previousFrom.set({ hour: from.hour, minute: from.minute, second: from.second, millisecond: from.millisecond });
    const relativeDays = dates.fromRelative?.unit === 'd' ? dates.fromRelative.amount : null;
    if (input.interval === 'day' && relativeDays && relativeDays % 7 === 0 && !hasDeltaMapping(dates.toRelative)) {
      previousFrom = wallClockPlus(previousFrom, { days: 1 });
    }
    previousTo = wallClockPlus(previousFrom, diff).set({
      hour: to.hour,
      minute: to.minute,
      second: to.second,
      millisecond: to.millisecond,
    });
  }
  return { ...input, dateFrom: isoWithOffset(previousFrom), dateTo: isoWithOffset(previousTo) };
}

/** PostHog's delta mapping is empty (falsy) for relative strings that neither move nor pin anything. */
function hasDeltaMapping(relative: RelativeDate | null): boolean {
  if (!relative) return false;
  if (relative.amount !== null) return true;
  const pinsFields = relative.unit === 'h' || relative.unit === 'd' || relative.unit === 'm' || relative.unit === 'y';
  return pinsFields && relative.position !== null;
}

function isoWithOffset(at: DateTime): string {
  return at.toISO({ includeOffset: true }) ?? at.toUTC().toISO()!;
}

/**
 * `days` of an aggregate (non-time-series) display: from the Filter's date_from stepping a fixed
 * number of seconds (a month is 30 days) while not past its date_to — not aligned to buckets.
 */
export function aggregateDays(input: DateRangeInput, clock: ProjectClock): string[] {
  const dates = filterDates(input, clock);
  if (!dates.from) return [];
  const days: string[] = [];
  for (let at = dates.from; at <= dates.to; at = wallClockPlus(at, { seconds: SECONDS_IN_INTERVAL[input.interval] })) {
    days.push(formatDay(at, input.interval));
    if (days.length > MAX_BUCKETS) break;
  }
  return days;
}

/** DateTime64(6, 'UTC') text for a bound; an end-of-unit bound keeps its microseconds (…59.999999). */
export function toWarehouseTime(at: DateTime): string {
  const utc = at.toUTC();
  const micros = utc.millisecond === 999 && utc.second === 59 ? '999' : '000';
  return `${utc.toFormat('yyyy-MM-dd HH:mm:ss.SSS')}${micros}`;
}

/**
 * The rolling window of weekly/monthly active users for a bucket starting at `bucket`:
 * events after bucket − (days − 1) days and up to bucket + 1 day (PostHog's legacy window).
 */
export function activeUsersWindow(bucket: DateTime, windowDays: number): { after: DateTime; upTo: DateTime } {
  return { after: wallClockMinus(bucket, { days: windowDays - 1 }), upTo: wallClockPlus(bucket, { days: 1 }) };
}

/** The start of the aggregate window of weekly/monthly active users: `windowDays` before the end of the range. */
export function activeUsersAggregateStart(to: DateTime, windowDays: number): DateTime {
  return wallClockMinus(to, { days: windowDays });
}
