import { DateTime } from 'luxon';
import type { Project } from '../../projects/project.js';
import type { Warehouse } from '../../storage/warehouse/warehouse.js';
import { needsEarliestEvent, resolveDateRange, type DateRangeInput } from '../../query/date-range.js';
import { projectClock } from '../actors/analysis-inputs.js';

export interface ResolvedDateRange {
  date_from: string;
  date_to: string;
}

async function earliestEvent(warehouse: Warehouse, projectId: number): Promise<DateTime | null> {
  const [row] = await warehouse.query<{ earliest: string | null }>(
    `SELECT if(count() = 0, NULL, toString(min(timestamp))) AS earliest FROM events
     WHERE team_id = {team_id:Int64} AND timestamp >= toDateTime64('2015-01-01 00:00:00', 6, 'UTC')`,
    { team_id: projectId },
  );
  return row?.earliest ? DateTime.fromSQL(row.earliest, { zone: 'UTC' }) : null;
}

/**
 * PostHog's `resolved_date_range` of an insight result: the start of its first interval and the
 * end of its range, in the project's timezone, as the runner resolved them at `now`.
 */
export async function resolvedDateRange(warehouse: Warehouse, project: Project, dates: DateRangeInput, now: DateTime): Promise<ResolvedDateRange> {
  const clock = projectClock(project, now);
  const earliest = needsEarliestEvent(dates) ? await earliestEvent(warehouse, project.id) : null;
  const range = resolveDateRange(dates, clock, earliest);
  return { date_from: range.roundedFrom.toISO()!, date_to: range.to.toISO()! };
}
