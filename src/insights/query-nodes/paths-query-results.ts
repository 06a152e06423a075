import type { DateTime } from 'luxon';
import type { Project } from '../../projects/project.js';
import { analysisWindow, projectClock } from '../actors/analysis-inputs.js';
import { legacyPathResult } from '../paths/path-legacy-result.js';
import type { PathResult, PathRunner } from '../paths/path-runner.js';
import type { InsightQueryAnswer } from './insight-query-answer.js';
import { errorInPathsQuery, type PathsQueryPlan } from './paths-query.js';

/** One edge of a PathsQuery's results (PostHog's PathsLink). */
export interface PathsLink {
  source: string;
  target: string;
  value: number;
  average_conversion_time: number;
}

/**
 * Computes a translated PathsQuery with the legacy path runner, so its edges are those of
 * `/insights/path/`: PostHog's PathsLink, times in milliseconds.
 */
export async function runPathsQuery(runner: PathRunner, project: Project, plan: PathsQueryPlan, now: DateTime): Promise<InsightQueryAnswer<PathsLink[]>> {
  let result: PathResult;
  try {
    result = await runner.run(project, plan.filter);
  } catch (error) {
    throw errorInPathsQuery(error, plan.path);
  }
  const { from, to } = analysisWindow(plan.filter.dates, projectClock(project, now));
  return { results: legacyPathResult(result), hasMore: false, resolvedDateRange: { date_from: from.toISO()!, date_to: to.toISO()! } };
}
