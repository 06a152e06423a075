import { formatDay, formatLabel } from '../../query/date-range.js';
import { formPair } from '../../util/form-encoding.js';
import type { RawInput } from '../filter-model.js';
import type { FunnelResult, FunnelStepsSeries, FunnelTrendsSeries } from './funnel-results.js';
import { bucketFields, stepNames } from './funnel-step-fields.js';

/**
 * PostHog's legacy funnel result shapes: a list of steps (a list of such
 * lists with a breakdown), funnel trends as series of conversion rates, and the time-to-convert
 * histogram. Every step carries the persons URLs of the actors who reached it and who dropped
 * off before it, on Tally's persons endpoint.
 */

/** The filter keys a funnel's persons URL carries over from the request. */
const FILTER_KEYS = [
  'insight',
  'events',
  'actions',
  'properties',
  'filter_test_accounts',
  'date_from',
  'date_to',
  'explicit_date',
  'interval',
  'display',
  'breakdown',
  'breakdowns',
  'breakdown_type',
  'breakdown_limit',
  'breakdown_group_type_index',
  'breakdown_attribution_type',
  'breakdown_attribution_value',
  'funnel_order_type',
  'funnel_viz_type',
  'funnel_window_days',
  'funnel_window_interval',
  'funnel_window_interval_unit',
  'funnel_from_step',
  'funnel_to_step',
  'exclusions',
  'aggregation_group_type_index',
];

/** A persons URL: the request's funnel filter with the given parameters set over it. */
export function personsUrl(path: string, input: RawInput, extra: Record<string, unknown>): string {
  const pairs = FILTER_KEYS.filter((key) => input[key] !== undefined && input[key] !== null && !(key in extra)).map((key) => formPair(key, input[key]));
  for (const [key, value] of Object.entries(extra)) pairs.push(formPair(key, value));
  return `${path}?${pairs.join('&')}`;
}

function legacySteps(series: FunnelStepsSeries, unordered: boolean, path: string, input: RawInput): object[] {
  const breakdown = series.bucket ? bucketFields(series.bucket) : null;
  const select = breakdown ? { funnel_step_breakdown: breakdown.breakdown_value } : {};
  return series.steps.map((step) => ({
    ...stepNames(step, unordered),
    order: step.index,
    people: [],
    count: step.count,
    type: step.entity.type,
    average_conversion_time: step.averageConversionTime,
    median_conversion_time: step.medianConversionTime,
    ...(breakdown ?? {}),
    converted_people_url: personsUrl(path, input, { ...select, funnel_step: step.index + 1 }),
    // Everyone at the first step converted into the funnel: nobody dropped off before it.
    dropped_people_url: step.index > 0 ? personsUrl(path, input, { ...select, funnel_step: -(step.index + 1) }) : null,
  }));
}

function legacyTrend(series: FunnelTrendsSeries, interval: Extract<FunnelResult, { kind: 'trends' }>['interval']): object {
  const item: Record<string, unknown> = {
    count: series.points.length,
    data: series.points.map((point) => point.conversionRate),
    days: series.points.map((point) => formatDay(point.periodStart, interval)),
    // PostHog's funnel trends label every interval by its day.
    labels: series.points.map((point) => formatLabel(point.periodStart, 'day')),
  };
  if (series.bucket) item.breakdown_value = series.bucket.kind === 'cohort' ? series.bucket.name : bucketFields(series.bucket).breakdown_value;
  return item;
}

export function legacyFunnelResult(projectId: number, input: RawInput, result: FunnelResult): unknown {
  const path = `/api/projects/${projectId}/persons/funnel/`;
  switch (result.kind) {
    case 'steps': {
      const unordered = result.orderType === 'unordered';
      const lists = result.series.map((series) => legacySteps(series, unordered, path, input));
      return result.series.length === 1 && result.series[0]!.bucket === null ? lists[0] : lists;
    }
    case 'trends':
      return result.series.map((series) => legacyTrend(series, result.interval));
    case 'time_to_convert':
      return { bins: result.bins, average_conversion_time: result.averageConversionTime };
  }
}
