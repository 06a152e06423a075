import type { DateTime } from 'luxon';
import type { Project } from '../../projects/project.js';
import type { ResolvedDateRange } from '../query-nodes/resolved-date-range.js';
import { projectClock } from '../actors/analysis-inputs.js';
import type { RawInput } from '../filter-model.js';
import { parseRetentionFilter } from './retention-filter.js';
import { legacyRetentionResult } from './retention-legacy-result.js';
import type { RetentionRunner } from './retention-runner.js';

/** A saved insight's legacy retention `filters`, computed as `/insights/retention/` computes them at `now`. */
export async function savedRetentionResult(runner: RetentionRunner, project: Project, filters: RawInput, now: DateTime) {
  const filter = parseRetentionFilter(filters, projectClock(project, now));
  const result = await runner.run(project, filter);
  const resolvedDateRange: ResolvedDateRange = { date_from: filter.start.toISO()!, date_to: filter.end.toISO()! };
  return { result: legacyRetentionResult(project.id, filter, result), hasMore: false, timezone: project.timezone, resolvedDateRange };
}
