import type { DateTime } from 'luxon';
import type { Project } from '../../projects/project.js';
import type { ResolvedDateRange } from '../query-nodes/resolved-date-range.js';
import { analysisWindow, projectClock } from '../actors/analysis-inputs.js';
import type { RawInput } from '../filter-model.js';
import { parsePathFilter } from './path-filter.js';
import { legacyPathResult } from './path-legacy-result.js';
import type { PathRunner } from './path-runner.js';

/** A saved insight's legacy paths `filters`, computed as `/insights/path/` computes them. */
export async function savedPathResult(runner: PathRunner, project: Project, filters: RawInput, now: DateTime) {
  const filter = parsePathFilter(filters);
  const result = await runner.run(project, filter);
  const { from, to } = analysisWindow(filter.dates, projectClock(project, now));
  const resolvedDateRange: ResolvedDateRange = { date_from: from.toISO()!, date_to: to.toISO()! };
  return { result: legacyPathResult(result), hasMore: false, timezone: project.timezone, resolvedDateRange };
}
