import { DateTime } from 'luxon';
import type { Project } from '../../projects/project.js';
import type { ProjectClock } from '../date-range.js';
import { combineAnd, parseProperties, type InsightFilter, type PropertyGroup } from '../filter-model.js';

export function projectClock(project: Project, now: DateTime = DateTime.now()): ProjectClock {
  return { timezone: project.timezone, weekStartDay: project.weekStartDay ?? 0, now };
}

/** The project's test-account filters when the request asks for them, else nothing. */
export function testAccountFilters(project: Project, filter: Pick<InsightFilter, 'filterTestAccounts'>): PropertyGroup {
  return filter.filterTestAccounts ? parseProperties(project.testAccountFilters) : combineAnd();
}
