import { ValidationError } from '../../errors.js';
import { textOf } from '../../util/text.js';
import { formatDay, parseDate, truncate, type ProjectClock } from '../../query/date-range.js';
import { isTruthyFlag } from '../../util/request-params.js';
import type { RawInput } from '../filter-model.js';
import type { FunnelFilter } from './funnel-filter.js';

/** The persons of one funnel-trends data point: who entered in a period, and converted or dropped off. */
export interface FunnelTrendsSelection {
  /** The entrance period, as the funnel's SQL keys it (`2021-05-01`, `2021-05-01 13:00:00` for hours). */
  period: string;
  /** Furthest step (1-based) bounds of the actors to return. */
  minSteps: number;
  maxSteps: number;
}

/** True when the request is for funnel-trends persons. */
export function isFunnelTrendsRequest(input: RawInput): boolean {
  return input.funnel_viz_type === 'trends' || (input.entrance_period_start !== undefined && input.entrance_period_start !== '');
}

function stepParam(value: unknown, attr: string, fallback: number, last: number): number {
  if (value === undefined || value === null || value === '') return fallback;
  const step = Number(value);
  if (!Number.isInteger(step) || step < 0 || step > last) throw new ValidationError(attr, `${attr} must be a step index from 0 to ${last}.`);
  return step;
}

/**
 * `entrance_period_start` names the period (truncated to the interval, project timezone);
 * `drop_off=false` gives who reached `funnel_to_step`, `true` who reached `funnel_from_step` and not it.
 */
export function parseFunnelTrendsSelection(input: RawInput, filter: FunnelFilter, clock: ProjectClock): FunnelTrendsSelection {
  const text = input.entrance_period_start;
  if (text === undefined || text === null || text === '') {
    throw new ValidationError('entrance_period_start', 'Funnel trends persons need entrance_period_start.', 'required');
  }
  const parsed = parseDate(textOf(text), clock.timezone, clock.now);
  if (!parsed) throw new ValidationError('entrance_period_start', `Unable to parse entrance_period_start "${textOf(text)}".`);
  if (input.drop_off === undefined || input.drop_off === null || input.drop_off === '') {
    throw new ValidationError('drop_off', 'Funnel trends persons need drop_off (true or false).', 'required');
  }
  const last = filter.steps.length - 1;
  const fromStep = stepParam(input.funnel_from_step, 'funnel_from_step', 0, last);
  const toStep = stepParam(input.funnel_to_step, 'funnel_to_step', last, last);
  if (fromStep >= toStep) throw new ValidationError('funnel_to_step', 'funnel_to_step must come after funnel_from_step.');
  const start = truncate(parsed.at, filter.dates.interval, clock.weekStartDay);
  const dropOff = isTruthyFlag(input.drop_off);
  return {
    period: formatDay(start, filter.dates.interval),
    minSteps: dropOff ? fromStep + 1 : toStep + 1,
    maxSteps: dropOff ? toStep : filter.steps.length,
  };
}
