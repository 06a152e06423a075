import { DateTime } from 'luxon';
import type { Project } from '../../projects/project.js';
import type { Warehouse } from '../../storage/warehouse/warehouse.js';
import { needsEarliestEvent, resolveDateRange, type DateRangeInput, type ProjectClock, type QueryDateRange } from '../../query/date-range.js';

/** The project's first event since 2015 (PostHog's `get_earliest_timestamp`), null when it has none. */
async function earliestEvent(warehouse: Warehouse, projectId: number): Promise<DateTime | null> {
  const [row] = await warehouse.query<{ earliest: string | null }>(
    `SELECT if(count() = 0, NULL, toString(min(timestamp))) AS earliest FROM events
     WHERE team_id = {team_id:Int64} AND timestamp >= toDateTime64('2015-01-01 00:00:00', 6, 'UTC')`,
    { team_id: projectId },
  );
  return row?.earliest ? DateTime.fromSQL(row.earliest, { zone: 'UTC' }) : null;
}

/**
 * The range of a lifecycle or stickiness query: the shared date module's, where `date_from=all`
 * starts at the project's first event. The insight and its actors resolve it the same way, so
 * they read the same events.
 */
export async function projectDateRange(warehouse: Warehouse, project: Project, dates: DateRangeInput, clock: ProjectClock): Promise<QueryDateRange> {
  const earliest = needsEarliestEvent(dates) ? await earliestEvent(warehouse, project.id) : null;
  return resolveDateRange(dates, clock, earliest);
}
