import type { DateTime } from 'luxon';
import { CURRENT_PERSONS } from '../../storage/warehouse/replicas.js';
import { toWarehouseTime } from '../../query/date-range.js';
import { limitClause, type ActorPage } from '../actors/actor-page.js';
import { SeriesScope, type SeriesDefinition } from '../trends/series-scope.js';

export const LIFECYCLE_STATUSES = ['new', 'returning', 'resurrecting', 'dormant'] as const;
export type LifecycleStatus = (typeof LIFECYCLE_STATUSES)[number];

export interface LifecycleActorsQuery {
  series: SeriesDefinition;
  /** Start of the period before the target one. */
  previousStart: DateTime;
  /** Start of the target period. */
  periodStart: DateTime;
  /** Start of the period after it. */
  nextStart: DateTime;
  status: LifecycleStatus;
  page: ActorPage;
}

/**
 * insights.md §4.2: new = active in the period and created in it (person creation, not first
 * event); returning = active in it and in the one before; resurrecting = active in it, not in
 * the one before, not new; dormant = active in the one before, not in it.
 */
const STATUS_CONDITION: Record<LifecycleStatus, string> = {
  new: 'activity.active_now AND created_in_period',
  returning: 'activity.active_now AND activity.active_before AND NOT created_in_period',
  resurrecting: 'activity.active_now AND NOT activity.active_before AND NOT created_in_period',
  dormant: 'NOT activity.active_now AND activity.active_before',
};

export async function lifecycleActorsSql(query: LifecycleActorsQuery): Promise<{ sql: string; params: Record<string, unknown> }> {
  const lastMoment = query.nextStart.minus({ milliseconds: 1 });
  const scope = await SeriesScope.create(query.series, query.previousStart, lastMoment);
  const { params } = scope;
  const periodStart = params.add(toWarehouseTime(query.periodStart), "DateTime64(6, 'UTC')");
  const nextStart = params.add(toWarehouseTime(query.nextStart), "DateTime64(6, 'UTC')");
  const sql = `SELECT toString(activity.actor) AS actor_id
FROM (
  SELECT ${scope.source.personId} AS actor, max(e.timestamp >= ${periodStart}) AS active_now, max(e.timestamp < ${periodStart}) AS active_before
  ${scope.fromWhere()}
  GROUP BY actor
) AS activity
INNER JOIN (
  SELECT id AS person_uuid, created_at >= ${periodStart} AND created_at < ${nextStart} AS created_in_period FROM (${CURRENT_PERSONS})
) AS person ON person.person_uuid = activity.actor
WHERE ${STATUS_CONDITION[query.status]}
ORDER BY activity.actor
${limitClause(query.page, params)}`;
  return { sql, params: params.all };
}
