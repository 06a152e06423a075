import type { DateTime } from 'luxon';
import type { Project } from '../../projects/project.js';
import type { RawInput } from '../filter-model.js';
import { legacyStickiness } from './stickiness-legacy.js';
import type { StickinessRunner } from './stickiness-runner.js';

/** A saved insight's legacy stickiness `filters`, computed as `/insights/trend/` computes them at `now`. */
export async function savedStickinessResult(runner: StickinessRunner, project: Project, filters: RawInput, now: DateTime) {
  const { items, filter } = await legacyStickiness(runner, project, filters, now);
  const range = await runner.dateRange(project, filter.dates, now);
  return {
    result: items,
    hasMore: false,
    timezone: project.timezone,
    resolvedDateRange: { date_from: range.roundedFrom.toISO()!, date_to: range.to.toISO()! },
  };
}
