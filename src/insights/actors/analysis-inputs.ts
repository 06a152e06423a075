import { DateTime } from 'luxon';
import type { Project } from '../../projects/project.js';
import { resolveDateRange, type DateRangeInput, type ProjectClock } from '../../query/date-range.js';
import type { InsightFilter } from '../filter-model.js';
import { combineAnd, parseProperties, type PropertyGroup } from '../../query/property-filter-model.js';

export function projectClock(project: Project, now: DateTime = DateTime.now()): ProjectClock {
  return { timezone: project.timezone, weekStartDay: project.weekStartDay ?? 0, now };
}

/** The project's test-account filters when the request asks for them, else nothing. */
export function testAccountFilters(project: Project, filter: Pick<InsightFilter, 'filterTestAccounts'>): PropertyGroup {
  return filter.filterTestAccounts ? parseProperties(project.testAccountFilters) : combineAnd();
}

/**
 * The events an analysis reads: the resolved date range (default the last 7 days), where
 * `date_from=all` means from the first event, so no lower bound is needed.
 */
export function analysisWindow(dates: DateRangeInput, clock: ProjectClock): { from: DateTime; to: DateTime } {
  if (dates.dateFrom === 'all') {
    return { from: DateTime.fromMillis(0, { zone: clock.timezone }), to: resolveDateRange({ ...dates, dateFrom: null }, clock).to };
  }
  const range = resolveDateRange(dates, clock);
  return { from: range.from, to: range.to };
}
