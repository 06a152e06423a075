import { ValidationError } from '../../errors.js';
import { integerOrNull } from '../../util/safe-integer.js';
import { textOf } from '../../util/text.js';
import { parseAnalysisFilter } from '../actors/analysis-filter.js';
import type { DateRangeInput } from '../../query/date-range.js';
import { parseFunnelBreakdown, type FunnelBreakdown } from './funnel-breakdown.js';
import { parseExclusions, type FunnelExclusion } from './funnel-exclusions.js';
import type { RawInput, SeriesEntity } from '../filter-model.js';
import type { PropertyGroup } from '../../query/property-filter-model.js';

export const FUNNEL_ORDER_TYPES = ['ordered', 'strict', 'unordered'] as const;
export type FunnelOrderType = (typeof FUNNEL_ORDER_TYPES)[number];

export const FUNNEL_VIZ_TYPES = ['steps', 'trends', 'time_to_convert'] as const;
export type FunnelVizType = (typeof FUNNEL_VIZ_TYPES)[number];

/** Which breakdown value an actor counts under. */
export type BreakdownAttribution = { kind: 'first_touch' } | { kind: 'last_touch' } | { kind: 'all_events' } | { kind: 'step'; step: number };

/** A legacy funnel filter: steps, order, conversion window, breakdown, what to show. */
export interface FunnelFilter {
  steps: SeriesEntity[];
  properties: PropertyGroup;
  filterTestAccounts: boolean;
  dates: DateRangeInput;
  breakdown: FunnelBreakdown | null;
  orderType: FunnelOrderType;
  exclusions: FunnelExclusion[];
  windowSeconds: number;
  attribution: BreakdownAttribution;
  vizType: FunnelVizType;
  /** Trends and time to convert measure from this step to that one (0-based). */
  fromStep: number;
  toStep: number;
  /** Time to convert: the bins asked for, null for an automatic count. */
  binCount: number | null;
  /** Actors are the groups of this type instead of persons. */
  aggregationGroupTypeIndex: number | null;
}

/** Steps are a bitmask per event; a funnel longer than this is not a funnel anyone reads. */
export const MAX_FUNNEL_STEPS = 30;

const UNIT_SECONDS: Record<string, number> = {
  second: 1,
  minute: 60,
  hour: 3600,
  day: 86_400,
  week: 604_800,
  // As PostHog's funnel engine: a month is 31 days.
  month: 2_678_400,
};

function absent(value: unknown): boolean {
  return value === undefined || value === null || value === '';
}

function positiveInteger(value: unknown, attr: string): number | null {
  if (absent(value)) return null;
  const text = textOf(value).trim();
  if (!/^\d+$/.test(text) || Number(text) < 1) throw new ValidationError(attr, `${attr} must be a positive integer.`);
  return Number(text);
}

function stepIndex(value: unknown, attr: string): number | null {
  if (absent(value)) return null;
  const index = integerOrNull(value);
  if (index === null || index < 0) throw new ValidationError(attr, `${attr} must be a step index (0 or more).`);
  return index;
}

/** Longer windows than a century would overflow the microseconds the SQL measures them in. */
const MAX_WINDOW_SECONDS = 100 * 366 * 86_400;

function checkedWindow(seconds: number, attr: string): number {
  if (seconds > MAX_WINDOW_SECONDS) throw new ValidationError(attr, 'The conversion window can be at most 100 years.');
  return seconds;
}

/** `funnel_window_days` wins over `funnel_window_interval` + unit; the default is 14 days. */
function windowSeconds(input: RawInput): number {
  const days = positiveInteger(input.funnel_window_days, 'funnel_window_days');
  if (days !== null) return checkedWindow(days * UNIT_SECONDS.day!, 'funnel_window_days');
  const amount = positiveInteger(input.funnel_window_interval, 'funnel_window_interval') ?? 14;
  const unit = absent(input.funnel_window_interval_unit) ? 'day' : textOf(input.funnel_window_interval_unit);
  const seconds = UNIT_SECONDS[unit];
  if (seconds === undefined) {
    throw new ValidationError('funnel_window_interval_unit', `Unit "${unit}" is not one of ${Object.keys(UNIT_SECONDS).join(', ')}.`);
  }
  return checkedWindow(amount * seconds, 'funnel_window_interval');
}

function orderType(value: unknown): FunnelOrderType {
  if (absent(value)) return 'ordered';
  if (!(FUNNEL_ORDER_TYPES as readonly unknown[]).includes(value)) {
    throw new ValidationError('funnel_order_type', `funnel_order_type must be one of ${FUNNEL_ORDER_TYPES.join(', ')}.`);
  }
  return value as FunnelOrderType;
}

/** `funnel_viz_type`; without it, PostHog's legacy filter shows trends for a line-graph display. */
function vizType(input: RawInput): FunnelVizType {
  const value = input.funnel_viz_type;
  if (absent(value)) return input.display === 'ActionsLineGraph' ? 'trends' : 'steps';
  if (!(FUNNEL_VIZ_TYPES as readonly unknown[]).includes(value)) {
    throw new ValidationError('funnel_viz_type', `funnel_viz_type must be one of ${FUNNEL_VIZ_TYPES.join(', ')}.`);
  }
  return value as FunnelVizType;
}

function attribution(input: RawInput, steps: number, order: FunnelOrderType): BreakdownAttribution {
  const type = input.breakdown_attribution_type;
  if (absent(type) || type === 'first_touch') return { kind: 'first_touch' };
  if (type === 'last_touch') return { kind: 'last_touch' };
  if (type === 'all_events') return { kind: 'all_events' };
  if (type !== 'step') {
    throw new ValidationError('breakdown_attribution_type', 'breakdown_attribution_type must be one of first_touch, last_touch, all_events, step.');
  }
  const step = absent(input.breakdown_attribution_value) ? 0 : integerOrNull(input.breakdown_attribution_value);
  if (step === null || step < 0 || step >= steps) {
    throw new ValidationError('breakdown_attribution_value', 'breakdown_attribution_value must be a step index of the funnel.');
  }
  // Unordered steps have no order, so only the first step attributes (as PostHog's funnels require).
  if (order === 'unordered' && step !== 0) {
    throw new ValidationError('breakdown_attribution_value', 'Only step 0 can attribute the breakdown of an unordered funnel.');
  }
  return { kind: 'step', step };
}

function binCount(value: unknown): number | null {
  if (absent(value)) return null;
  const count = integerOrNull(value);
  if (count === null) throw new ValidationError('bin_count', 'bin_count must be an integer.');
  // PostHog clamps a custom count between 1 and 90.
  return Math.min(90, Math.max(1, count));
}

function aggregationGroupTypeIndex(value: unknown): number | null {
  if (absent(value)) return null;
  const index = integerOrNull(value);
  if (index === null || index < 0 || index > 4) {
    throw new ValidationError('aggregation_group_type_index', 'aggregation_group_type_index must be a group type index between 0 and 4.');
  }
  return index;
}

/**
 * The steps trends and time to convert measure between: first to last by default. Time to
 * convert needs a later step to convert to (PostHog's rule); trends allow a one-step funnel.
 */
function stepRange(input: RawInput, steps: number, viz: FunnelVizType): { fromStep: number; toStep: number } {
  const last = steps - 1;
  const fromStep = stepIndex(input.funnel_from_step, 'funnel_from_step') ?? 0;
  const toStep = stepIndex(input.funnel_to_step, 'funnel_to_step') ?? last;
  if (viz === 'steps') return { fromStep, toStep };
  if (viz === 'time_to_convert' && !(toStep > 0 && toStep <= last)) {
    const choices = Array.from({ length: last }, (_, index) => index + 1).join(', ');
    throw new ValidationError('funnel_to_step', `funnel_to_step can only be one of ${choices || 'no step of a one-step funnel'} for time to convert.`);
  }
  if (toStep > last) throw new ValidationError('funnel_to_step', `funnel_to_step must be a step index from 0 to ${last}.`);
  if (fromStep > toStep || (fromStep === toStep && steps > 1)) {
    throw new ValidationError('funnel_to_step', 'funnel_to_step must come after funnel_from_step.');
  }
  return { fromStep, toStep };
}

export function parseFunnelFilter(input: RawInput): FunnelFilter {
  // The funnel reads its own breakdown forms (lists of properties); the shared parser reads the rest.
  const { breakdown: _breakdown, breakdowns: _breakdowns, breakdown_type: _breakdownType, ...rest } = input;
  const filter = parseAnalysisFilter(rest);
  if (filter.entities.length === 0) throw new ValidationError('events', 'A funnel needs at least one step in events or actions.', 'required');
  if (filter.entities.length > MAX_FUNNEL_STEPS) throw new ValidationError('events', `A funnel has at most ${MAX_FUNNEL_STEPS} steps.`);
  const order = orderType(input.funnel_order_type);
  const viz = vizType(input);
  return {
    steps: filter.entities,
    properties: filter.properties,
    filterTestAccounts: filter.filterTestAccounts,
    dates: filter.dates,
    breakdown: parseFunnelBreakdown(input),
    orderType: order,
    exclusions: parseExclusions(input, filter.entities, order === 'unordered'),
    windowSeconds: windowSeconds(input),
    attribution: attribution(input, filter.entities.length, order),
    vizType: viz,
    ...stepRange(input, filter.entities.length, viz),
    binCount: binCount(input.bin_count),
    aggregationGroupTypeIndex: aggregationGroupTypeIndex(input.aggregation_group_type_index),
  };
}
