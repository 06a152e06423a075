import type { DateTime } from 'luxon';
import type { Project } from '../../projects/project.js';
import { analysisWindow, projectClock } from '../actors/analysis-inputs.js';
import type { RawInput } from '../filter-model.js';
import { parseFunnelFilter } from './funnel-filter.js';
import { legacyFunnelResult } from './funnel-legacy-result.js';
import type { FunnelRunner } from './funnel-runner.js';

/** A saved insight's legacy funnel `filters`, computed as `/insights/funnel/` computes them at `now`. */
export async function savedFunnelResult(runner: FunnelRunner, project: Project, filters: RawInput, now: DateTime) {
  const filter = parseFunnelFilter(filters);
  const result = await runner.run(project, filter, { now });
  const { from, to } = analysisWindow(filter.dates, projectClock(project, now));
  return {
    result: legacyFunnelResult(project.id, filters, result),
    hasMore: false,
    timezone: project.timezone,
    resolvedDateRange: { date_from: from.toISO()!, date_to: to.toISO()! },
  };
}
