import type { SqlResolvers } from '../../query/resolvers.js';
import { ValidationError } from '../../errors.js';
import type { Project } from '../../projects/project.js';
import { combineAnd } from '../../query/property-filter-model.js';
import type { SqlParams } from '../../query/sql-params.js';
import { analysisWindow, projectClock, testAccountFilters } from '../actors/analysis-inputs.js';
import { EventScope, type EventScopeDefinition } from '../actors/event-scope.js';
import type { RawInput } from '../filter-model.js';
import { parseStepSelection } from '../funnels/funnel-actors.js';
import { parseFunnelFilter, type FunnelFilter } from '../funnels/funnel-filter.js';
import { funnelPerActorSql } from '../funnels/funnel-steps-sql.js';
import type { FunnelPathType } from './path-filter.js';

/** The funnel of funnel paths: its filter, its own `funnel_step`, and where its events come from. */
export interface FunnelPathSource {
  funnel: FunnelFilter;
  /** The funnel filter's own parameters (its `funnel_step`). */
  funnelInput: RawInput;
  scope: Omit<EventScopeDefinition, 'properties' | 'params'>;
}

/** The funnel a `funnel_filter` describes, read as the funnel endpoints read it (test accounts included). */
export function funnelPathSource(project: Project, funnelInput: RawInput, resolvers: SqlResolvers): FunnelPathSource {
  let funnel: FunnelFilter;
  try {
    funnel = parseFunnelFilter(funnelInput);
  } catch (error) {
    // Everything but the step selector is a field of funnel_filter.
    if (error instanceof ValidationError) throw new ValidationError('funnel_filter', `funnel_filter: ${error.detail}`);
    throw error;
  }
  funnel = { ...funnel, properties: combineAnd(funnel.properties, testAccountFilters(project, funnel)) };
  const { from, to } = analysisWindow(funnel.dates, projectClock(project));
  return { funnel, funnelInput, scope: { teamId: project.id, timezone: project.timezone, from, to, resolvers } };
}

/** Microsecond bounds no event reaches: an open side of a window. */
const OPEN_START = '-9223372036854775807';
const OPEN_END = '9223372036854775807';

/**
 * Funnel paths: the funnel's persons of `funnel_step` (N reached step N or
 * further, -N dropped off before step N) and, per person, the window of their paths, as
 * PostHog's legacy paths read the funnel's actors. The step's time is the one of the person's
 * furthest attempt; for a drop-off it is the last step they completed. `after` keeps events from
 * that step on; `before` keeps events up to it (for a drop-off, up to a conversion window after
 * it, when the person was deemed dropped off); `between` keeps events from the step before it up
 * to it. Columns: funnel_actor, window_start, window_end (microseconds, inclusive).
 */
export async function funnelPathWindowSql(type: FunnelPathType, source: FunnelPathSource, params: SqlParams): Promise<string> {
  const { funnel } = source;
  if (funnel.orderType === 'unordered') {
    throw new ValidationError('funnel_filter', 'Funnel paths need an ordered or strict funnel: unordered steps have no order in time.');
  }
  const selection = parseStepSelection(source.funnelInput, funnel.steps.length);
  if (selection.kind !== 'reached' && selection.kind !== 'dropped') {
    throw new ValidationError('funnel_filter', 'Funnel paths need a funnel_step in funnel_filter.');
  }
  // The step the window is anchored on (1-based), and which persons the step selects.
  const anchor = selection.kind === 'reached' ? selection.step : selection.before - 1;
  if (type === 'funnel_path_between_steps' && (selection.kind !== 'reached' || anchor < 2)) {
    throw new ValidationError('funnel_filter', 'Paths between steps need a funnel_step of 2 or more.');
  }
  const scope = await EventScope.create({ ...source.scope, properties: funnel.properties, params });
  const perActor = await funnelPerActorSql(funnel, scope, { breakdownValue: null });
  const step = params.add(anchor, 'UInt64');
  const persons = selection.kind === 'reached' ? `funnel.steps >= ${step}` : `funnel.steps = ${step}`;
  const stepTime = `funnel.step_times[${step}]`;
  const window = params.add(funnel.windowSeconds * 1_000_000, 'Int64');
  const bounds: Record<FunnelPathType, [string, string]> = {
    funnel_path_after_step: [stepTime, OPEN_END],
    funnel_path_before_step: [OPEN_START, selection.kind === 'dropped' ? `${stepTime} + ${window}` : stepTime],
    funnel_path_between_steps: [`funnel.step_times[${step} - 1]`, stepTime],
  };
  const [start, end] = bounds[type];
  return `SELECT funnel.actor AS funnel_actor, toInt64(${start}) AS window_start, toInt64(${end}) AS window_end
FROM (${perActor}) AS funnel
WHERE funnel.steps >= 1 AND ${persons}`;
}
