import { ValidationError } from '../../errors.js';
import { EventScope, type EventScopeDefinition } from '../actors/event-scope.js';
import type { SqlParams } from '../../query/sql-params.js';
import { parseStepSelection } from '../funnels/funnel-actors.js';
import type { FunnelFilter } from '../funnels/funnel-filter.js';
import { funnelPerActorSql } from '../funnels/funnel-steps-sql.js';
import type { FunnelPathType } from './path-filter.js';

export interface FunnelPathWindowQuery {
  type: FunnelPathType;
  funnel: FunnelFilter;
  /** The funnel filter's own parameters (its `funnel_step`). */
  funnelInput: Record<string, unknown>;
  scope: Omit<EventScopeDefinition, 'properties' | 'params'>;
}

/** Microsecond bounds no event reaches: an open side of a window. */
const OPEN_START = '-9223372036854775807';
const OPEN_END = '9223372036854775807';

/**
 * Funnel paths (insights.md §6.1): the funnel's persons of `funnel_step` (N reached step N or
 * further, -N dropped off before step N) and, per person, the window of their paths: from the
 * step on (`after`), up to it (`before`), or from the step before it to it (`between`). The
 * step's time is the one of the person's furthest attempt. Columns: funnel_actor, window_start,
 * window_end (microseconds, inclusive).
 */
export async function funnelPathWindowSql(query: FunnelPathWindowQuery, params: SqlParams): Promise<string> {
  if (query.funnel.orderType === 'unordered') {
    throw new ValidationError('funnel_filter', 'Funnel paths need an ordered or strict funnel: unordered steps have no order in time.');
  }
  const selection = parseStepSelection(query.funnelInput, query.funnel.steps.length);
  if (selection.kind !== 'reached' && selection.kind !== 'dropped') {
    throw new ValidationError('funnel_filter', 'Funnel paths need a funnel_step in funnel_filter.');
  }
  // The step the window is anchored on (1-based), and which persons the step selects.
  const anchor = selection.kind === 'reached' ? selection.step : selection.before - 1;
  if (query.type === 'funnel_path_between_steps' && (selection.kind !== 'reached' || anchor < 2)) {
    throw new ValidationError('funnel_filter', 'Paths between steps need a funnel_step of 2 or more.');
  }
  const scope = await EventScope.create({ ...query.scope, properties: query.funnel.properties, params });
  const perActor = await funnelPerActorSql(query.funnel, scope, { breakdownValue: null });
  const step = params.add(anchor, 'UInt64');
  const persons =
    selection.kind === 'reached' ? `funnel.steps >= ${step}` : `funnel.steps = ${step}`;
  const start =
    query.type === 'funnel_path_after_step' ? `funnel.step_times[${step}]` : query.type === 'funnel_path_between_steps' ? `funnel.step_times[${step} - 1]` : OPEN_START;
  const end = query.type === 'funnel_path_after_step' ? OPEN_END : `funnel.step_times[${step}]`;
  return `SELECT funnel.actor AS funnel_actor, toInt64(${start}) AS window_start, toInt64(${end}) AS window_end
FROM (${perActor}) AS funnel
WHERE funnel.steps >= 1 AND ${persons}`;
}
