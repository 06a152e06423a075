import type { Interval, WeekStartDay } from '../../query/date-range.js';
import type { SeriesMath } from '../filter-model.js';
import type { EventSource } from '../../query/event-source.js';
import { eventPropertyValue } from '../../query/property-filters.js';
import type { SqlParams } from '../../query/sql-params.js';

/**
 * Bucketing and aggregate expressions of trend series. Buckets are computed by ClickHouse in the
 * project timezone (`{timezone:String}`); their JSON text (`2020-01-01`, `2020-01-01 13:00:00`)
 * is the bucket key the shaper matches against the axis.
 */
export function bucketExpression(interval: Interval, timestamp: string, weekStartDay: WeekStartDay): string {
  const local = `toDateTime(${timestamp}, {timezone:String})`;
  switch (interval) {
    case 'hour':
      return `toStartOfHour(${local})`;
    case 'day':
      return `toDate(${local})`;
    case 'week':
      return `toStartOfWeek(${local}, ${weekStartDay === 1 ? 1 : 0})`;
    case 'month':
      return `toStartOfMonth(${local})`;
  }
}

const QUANTILE_OF: Record<string, string> = {
  median: 'quantile(0.5)',
  p75: 'quantile(0.75)',
  p90: 'quantile(0.9)',
  p95: 'quantile(0.95)',
  p99: 'quantile(0.99)',
};

/** `avg`, `quantile(0.9)`… for the function part of a property or count-per-actor math. */
export function aggregateFunction(fn: string): string {
  const base = fn.replace(/_count_per_actor$/, '');
  return QUANTILE_OF[base] ?? base;
}

/** The actor a math counts: a group of the given type, else the event's person. */
export function actorExpression(groupTypeIndex: number | null, source: EventSource): string {
  return groupTypeIndex === null ? source.personId : `e.\`$group_${groupTypeIndex}\``;
}

/** Conditions a math adds to the event scope (events without the counted group or session do not count). */
export function mathConditions(math: SeriesMath): string[] {
  if (math.kind === 'unique_group') return [`e.\`$group_${math.groupTypeIndex}\` != ''`];
  if (math.kind === 'count_per_actor' && math.groupTypeIndex !== null) return [`e.\`$group_${math.groupTypeIndex}\` != ''`];
  if (math.kind === 'unique_session') return [`e.\`$session_id\` != ''`];
  return [];
}

/**
 * The one-level aggregate of maths that need no inner grouping; with a condition, it only takes
 * the rows meeting it (ClickHouse's -If combinator), so several series can share one scan.
 */
export function simpleAggregate(math: SeriesMath, source: EventSource, params: SqlParams, condition: string | null = null): string {
  switch (math.kind) {
    case 'dau':
      return aggregateCall('uniqExact', [source.personId], condition);
    case 'unique_group':
      return aggregateCall('uniqExact', [`e.\`$group_${math.groupTypeIndex}\``], condition);
    case 'unique_session':
      return aggregateCall('uniqExact', ['e.`$session_id`'], condition);
    case 'property':
      return aggregateCall(aggregateFunction(math.fn), [`toFloat64OrNull(${eventPropertyValue(source, math.property, params)})`], condition);
    default:
      return aggregateCall('count', [], condition);
  }
}

/** `fn(args)`, or `fnIf(args, condition)`; a parametric function keeps its parameters: `quantileIf(0.5)(x, c)`. */
function aggregateCall(fn: string, args: string[], condition: string | null): string {
  if (condition === null) return `${fn}(${args.join(', ')})`;
  const parametric = /^(\w+)(\(.*\))$/.exec(fn);
  const conditional = parametric ? `${parametric[1]}If${parametric[2]}` : `${fn}If`;
  return `${conditional}(${[...args, condition].join(', ')})`;
}

/**
 * True when a math aggregates in two levels: one value per session (its duration) or per actor
 * (its event count), then the math over those values.
 */
export function aggregatesInTwoLevels(math: SeriesMath): math is TwoLevelMath {
  return math.kind === 'count_per_actor' || isSessionDurationMath(math);
}

type TwoLevelMath = Extract<SeriesMath, { kind: 'count_per_actor' }> | (Extract<SeriesMath, { kind: 'property' }> & { property: '$session_duration' });

/** True when a property math is over whole-session durations (one value per session). */
export function isSessionDurationMath(math: SeriesMath): boolean {
  return math.kind === 'property' && math.property === '$session_duration';
}
