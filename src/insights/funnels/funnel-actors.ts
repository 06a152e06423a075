import { ValidationError } from '../../errors.js';
import { textOf } from '../../util/text.js';
import type { RawInput } from '../filter-model.js';
import { ALL_USERS_COHORT, type FunnelBreakdown } from './funnel-breakdown.js';
import type { FunnelStepSelection } from './funnel-runner.js';

export type { FunnelStepSelection } from './funnel-runner.js';

function parseCustomSteps(value: unknown): number[] | null {
  if (value === undefined || value === null || value === '') return null;
  let decoded: unknown = value;
  try {
    decoded = typeof value === 'string' ? JSON.parse(value) : value;
  } catch {
    throw new ValidationError('funnel_custom_steps', 'funnel_custom_steps must be a JSON list of step numbers.');
  }
  const list = Array.isArray(decoded) ? decoded : [decoded];
  if (list.length === 0 || !list.every((step) => Number.isInteger(step) && step >= 1)) {
    throw new ValidationError('funnel_custom_steps', 'funnel_custom_steps must be a JSON list of step numbers.');
  }
  return list as number[];
}

/**
 * `funnel_custom_steps` (exact furthest steps) wins over `funnel_step`: N > 0 reached step N or
 * further (1-based), -N completed step N-1 and not step N.
 */
export function parseStepSelection(input: RawInput, totalSteps: number): FunnelStepSelection {
  const custom = parseCustomSteps(input.funnel_custom_steps);
  if (custom) return { kind: 'exactly', steps: custom };
  const raw = input.funnel_step;
  if (raw === undefined || raw === null || raw === '') {
    throw new ValidationError('funnel_step', 'funnel_step (or funnel_custom_steps) is required.', 'required');
  }
  const text = textOf(raw).trim();
  if (!/^-?\d+$/.test(text)) throw new ValidationError('funnel_step', 'funnel_step must be an integer.');
  const step = Number(text);
  if (step === -1 || step < -totalSteps || step > totalSteps) {
    throw new ValidationError('funnel_step', `funnel_step must be a step of the funnel: 1 to ${totalSteps}, or -2 to -${totalSteps} for drop-offs.`);
  }
  return step < 0 ? { kind: 'dropped', before: -step } : { kind: 'reached', step: Math.max(step, 1) };
}

function scalarText(value: unknown): string {
  return value === null || value === undefined ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);
}

function decoded(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

/** `funnel_step_breakdown` as sent: property breakdowns arrive as `["Chrome"]` or `Chrome`, cohorts as ids. */
export function parseStepBreakdown(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  const single = decoded(value);
  return scalarText(Array.isArray(single) ? (single[0] ?? '') : single);
}

/**
 * `funnel_step_breakdown` as the bucket key of the funnel's SQL: property values as a list
 * (`["Safari", "15"]` for two properties), a group value or a cohort id (`all` is 0, all users)
 * alone. Null when absent or when the funnel has no breakdown.
 */
export function stepBreakdownKey(value: unknown, breakdown: FunnelBreakdown | null): string[] | null {
  const first = parseStepBreakdown(value);
  if (first === null || !breakdown) return null;
  if (breakdown.type === 'group') return [first];
  if (breakdown.type === 'cohort') {
    if (first === 'all') return [String(ALL_USERS_COHORT)];
    if (!/^\d+$/.test(first)) throw new ValidationError('funnel_step_breakdown', 'A cohort breakdown value is a cohort id or "all".');
    return [first];
  }
  const values = decoded(value);
  return Array.isArray(values) ? values.map(scalarText) : [first];
}
