import type { DateTime } from 'luxon';
import type { Project } from '../../projects/project.js';
import type { RawInput } from '../filter-model.js';
import { legacyLifecycle } from './lifecycle-legacy.js';
import type { LifecycleRunner } from './lifecycle-runner.js';

/** A saved insight's legacy lifecycle `filters`, computed as `/insights/trend/` computes them at `now`. */
export async function savedLifecycleResult(runner: LifecycleRunner, project: Project, filters: RawInput, now: DateTime) {
  const { items, filter } = await legacyLifecycle(runner, project, filters, now);
  const range = await runner.dateRange(project, filter.dates, now);
  return {
    result: items,
    hasMore: false,
    timezone: project.timezone,
    resolvedDateRange: { date_from: (range.buckets[0] ?? range.from).toISO()!, date_to: range.to.toISO()! },
  };
}
