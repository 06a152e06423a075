import type { DateTime } from 'luxon';
import { ValidationError } from '../../errors.js';
import { textOf } from '../../util/text.js';
import { parseAnalysisFilter } from '../actors/analysis-filter.js';
import type { DateRangeInput } from '../../query/date-range.js';
import { parseExclusions, type FunnelExclusion } from './funnel-exclusions.js';
import type { Breakdown, RawInput, SeriesEntity } from '../filter-model.js';
import type { PropertyGroup } from '../../query/property-filter-model.js';

export const FUNNEL_ORDER_TYPES = ['ordered', 'strict', 'unordered'] as const;
export type FunnelOrderType = (typeof FUNNEL_ORDER_TYPES)[number];

export type BreakdownAttribution = { kind: 'first_touch' } | { kind: 'last_touch' } | { kind: 'step'; step: number };

/** A legacy funnel filter (insights.md §1.1): steps, order, conversion window, breakdown attribution. */
export interface FunnelFilter {
  steps: SeriesEntity[];
  properties: PropertyGroup;
  filterTestAccounts: boolean;
  dates: DateRangeInput;
  breakdown: Breakdown | null;
  orderType: FunnelOrderType;
  exclusions: FunnelExclusion[];
  windowSeconds: number;
  attribution: BreakdownAttribution;
  /** Funnel trends: only attempts entering in this period count. */
  entrancePeriod: { from: DateTime; to: DateTime } | null;
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

function positiveInteger(value: unknown, attr: string): number | null {
  if (value === undefined || value === null || value === '') return null;
  const text = textOf(value).trim();
  if (!/^\d+$/.test(text) || Number(text) < 1) throw new ValidationError(attr, `${attr} must be a positive integer.`);
  return Number(text);
}

/** `funnel_window_days` wins over `funnel_window_interval` + unit; the default is 14 days. */
function windowSeconds(input: RawInput): number {
  const days = positiveInteger(input.funnel_window_days, 'funnel_window_days');
  if (days !== null) return days * UNIT_SECONDS.day!;
  const amount = positiveInteger(input.funnel_window_interval, 'funnel_window_interval') ?? 14;
  const unit = input.funnel_window_interval_unit === undefined || input.funnel_window_interval_unit === '' ? 'day' : textOf(input.funnel_window_interval_unit);
  const seconds = UNIT_SECONDS[unit];
  if (seconds === undefined) {
    throw new ValidationError('funnel_window_interval_unit', `Unit "${unit}" is not one of ${Object.keys(UNIT_SECONDS).join(', ')}.`);
  }
  return amount * seconds;
}

function orderType(value: unknown): FunnelOrderType {
  if (value === undefined || value === null || value === '') return 'ordered';
  if (!(FUNNEL_ORDER_TYPES as readonly unknown[]).includes(value)) {
    throw new ValidationError('funnel_order_type', `funnel_order_type must be one of ${FUNNEL_ORDER_TYPES.join(', ')}.`);
  }
  return value as FunnelOrderType;
}

function attribution(input: RawInput, steps: number): BreakdownAttribution {
  const type = input.breakdown_attribution_type;
  if (type === 'last_touch') return { kind: 'last_touch' };
  if (type === 'step') {
    const step = Number(input.breakdown_attribution_value ?? 0);
    if (!Number.isInteger(step) || step < 0 || step >= steps) {
      throw new ValidationError('breakdown_attribution_value', 'breakdown_attribution_value must be a step index of the funnel.');
    }
    return { kind: 'step', step };
  }
  return { kind: 'first_touch' };
}

export function parseFunnelFilter(input: RawInput): FunnelFilter {
  const filter = parseAnalysisFilter(input);
  if (filter.entities.length === 0) throw new ValidationError('events', 'A funnel needs at least one step in events or actions.', 'required');
  if (filter.entities.length > MAX_FUNNEL_STEPS) throw new ValidationError('events', `A funnel has at most ${MAX_FUNNEL_STEPS} steps.`);
  const order = orderType(input.funnel_order_type);
  return {
    steps: filter.entities,
    properties: filter.properties,
    filterTestAccounts: filter.filterTestAccounts,
    dates: filter.dates,
    breakdown: filter.breakdown,
    orderType: order,
    exclusions: parseExclusions(input, filter.entities, order === 'unordered'),
    windowSeconds: windowSeconds(input),
    attribution: attribution(input, filter.entities.length),
    entrancePeriod: null,
  };
}
