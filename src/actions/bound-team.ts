import type { SqlParams } from '../query/sql-params.js';

/**
 * The project a query runs for. The resolver interfaces carry no project, but every insight and
 * person query binds `{team_id:Int64}` first, so catalog lookups are scoped by that binding.
 */
export function boundTeamId(params: SqlParams): number {
  const teamId = Number(params.all.team_id);
  if (!Number.isInteger(teamId)) throw new Error('a query reached the action/cohort resolver without {team_id:Int64}');
  return teamId;
}
