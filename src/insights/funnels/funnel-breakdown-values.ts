import type { Warehouse } from '../../storage/warehouse/warehouse.js';
import { EventScope, type EventScopeDefinition } from '../actors/event-scope.js';
import { ALL_USERS_COHORT } from './funnel-breakdown.js';
import type { FunnelFilter } from './funnel-filter.js';
import type { FunnelBuckets } from './funnel-steps-sql.js';

/**
 * The buckets a funnel breaks down into. Cohorts are the cohorts asked for. Property values are
 * PostHog's `get_breakdown_prop_values`: the values of the funnel's events in range ranked by
 * their number of events (ties: the greater value first), the first `breakdown_limit` of them;
 * every other value is `Other`. The events ranked are those of any step when an actor's value
 * can come from any of them (first and last touch, unordered funnels), else those of the step
 * the value comes from (the first, or the attributed one).
 */
export async function funnelBuckets(filter: FunnelFilter, scope: Omit<EventScopeDefinition, 'params'>, warehouse: Warehouse): Promise<FunnelBuckets | null> {
  const { breakdown } = filter;
  if (!breakdown) return null;
  if (breakdown.type === 'cohort') {
    // A cohort the project does not have is a 400 naming the breakdown.
    for (const cohort of breakdown.cohorts) if (cohort !== ALL_USERS_COHORT) await scope.resolvers.cohorts.cohortName(cohort, scope.teamId);
    return { kind: 'cohorts', cohorts: breakdown.cohorts };
  }
  const events = await EventScope.create(scope);
  const { source, params } = events;
  const value = `[${breakdown.properties.map((property) => source.breakdownValue(breakdown, property)).join(', ')}]`;
  const attribution = filter.attribution;
  const anyStep = filter.orderType === 'unordered' || attribution.kind === 'first_touch' || attribution.kind === 'last_touch';
  const ranked = anyStep ? filter.steps : [filter.steps[attribution.kind === 'step' ? attribution.step : 0]!];
  const conditions: string[] = [];
  for (const step of ranked) conditions.push(`(${await events.entityCondition(step, 'actions')})`);
  const limit = params.add(breakdown.limit, 'UInt64');
  const rows = await warehouse.query<{ value: string[] }>(
    `SELECT value FROM (
  SELECT ${value} AS value, count() AS events
  ${events.fromWhere([`(${conditions.join(' OR ')})`], [events.eventNamesScan(ranked)])}
  GROUP BY value
  ORDER BY events DESC, value DESC
  LIMIT ${limit}
)`,
    params.all,
  );
  return { kind: 'values', top: rows.map((row) => row.value) };
}
