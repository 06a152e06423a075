import { ValidationError } from '../../errors.js';
import { textOf } from '../../util/text.js';
import { limitClause, type ActorPage } from '../actors/actor-page.js';
import { EventScope, type EventScopeDefinition } from '../actors/event-scope.js';
import type { RawInput } from '../filter-model.js';
import type { FunnelFilter } from './funnel-filter.js';
import { funnelPerActorSql } from './funnel-steps-sql.js';

/** Which actors of a funnel: reached a step or further, dropped off before one, or exact step counts. */
export type FunnelStepSelection =
  | { kind: 'reached'; step: number }
  | { kind: 'dropped'; before: number }
  | { kind: 'exactly'; steps: number[] }
  | { kind: 'between'; min: number; max: number };

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

/** `funnel_step_breakdown` as sent: property breakdowns arrive as `["Chrome"]` or `Chrome`, cohorts as ids. */
export function parseStepBreakdown(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  let decoded: unknown = value;
  if (typeof value === 'string') {
    try {
      decoded = JSON.parse(value);
    } catch {
      decoded = value;
    }
  }
  if (Array.isArray(decoded)) decoded = decoded[0] ?? '';
  if (decoded === null || decoded === undefined) return '';
  return typeof decoded === 'object' ? JSON.stringify(decoded) : String(decoded);
}

function selectionCondition(selection: FunnelStepSelection, scope: EventScope): string {
  switch (selection.kind) {
    case 'reached':
      return `funnel.steps >= ${scope.params.add(selection.step, 'UInt64')}`;
    case 'dropped':
      return `funnel.steps = ${scope.params.add(selection.before - 1, 'UInt64')}`;
    case 'exactly':
      return `funnel.steps IN ${scope.params.add(selection.steps, 'Array(UInt64)')}`;
    case 'between':
      return `funnel.steps BETWEEN ${scope.params.add(selection.min, 'UInt64')} AND ${scope.params.add(selection.max, 'UInt64')}`;
  }
}

export interface FunnelActorsQuery {
  scope: Omit<EventScopeDefinition, 'properties'>;
  filter: FunnelFilter;
  selection: FunnelStepSelection;
  breakdownValue: string | null;
  page: ActorPage;
}

/** The persons of one funnel step (or drop-off), in person-id order as PostHog pages them. */
export async function funnelActorsSql(query: FunnelActorsQuery): Promise<{ sql: string; params: Record<string, unknown> }> {
  const scope = await EventScope.create({ ...query.scope, properties: query.filter.properties });
  const perActor = await funnelPerActorSql(query.filter, scope, { breakdownValue: query.breakdownValue });
  const sql = `SELECT toString(funnel.actor) AS actor_id
FROM (${perActor}) AS funnel
WHERE funnel.steps >= 1 AND funnel.in_breakdown AND ${selectionCondition(query.selection, scope)}
ORDER BY funnel.actor
${limitClause(query.page, scope.params)}`;
  return { sql, params: scope.params.all };
}
