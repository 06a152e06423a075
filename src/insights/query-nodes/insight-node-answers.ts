import type { DateTime } from 'luxon';
import type { Project } from '../../projects/project.js';
import { projectClock } from '../actors/analysis-inputs.js';
import type { LifecycleRunner } from '../lifecycle/lifecycle-runner.js';
import type { PathRunner } from '../paths/path-runner.js';
import type { RetentionRunner } from '../retention/retention-runner.js';
import type { StickinessRunner } from '../stickiness/stickiness-runner.js';
import type { InsightQueryAnswer } from './insight-query-answer.js';
import { lifecycleQueryToFilter } from './lifecycle-query.js';
import { runLifecycleQuery } from './lifecycle-query-results.js';
import { pathsQueryToFilter } from './paths-query.js';
import { runPathsQuery } from './paths-query-results.js';
import { retentionQueryToFilter } from './retention-query.js';
import { runRetentionQuery } from './retention-query-results.js';
import { stickinessQueryToFilter } from './stickiness-query.js';
import { runStickinessQuery } from './stickiness-query-results.js';

export interface InsightNodeRunners {
  retention: RetentionRunner;
  lifecycle: LifecycleRunner;
  stickiness: StickinessRunner;
  paths: PathRunner;
}

/**
 * A RetentionQuery, LifecycleQuery, StickinessQuery or PathsQuery node (at `path`) computed
 * through its converter and runner, as the query API answers it; null for any other kind.
 * Saved insights holding such a node compute through here.
 */
export function answerInsightNode(
  runners: InsightNodeRunners,
  project: Project,
  node: Record<string, unknown>,
  path: string,
  now: DateTime,
): Promise<InsightQueryAnswer> | null {
  switch (node.kind) {
    case 'RetentionQuery':
      return runRetentionQuery(runners.retention, project, retentionQueryToFilter(node, path, projectClock(project, now)));
    case 'LifecycleQuery':
      return runLifecycleQuery(runners.lifecycle, project, lifecycleQueryToFilter(node, path), now);
    case 'StickinessQuery':
      return runStickinessQuery(runners.stickiness, project, stickinessQueryToFilter(node, path), now);
    case 'PathsQuery':
      return runPathsQuery(runners.paths, project, pathsQueryToFilter(node, path), now);
    default:
      return null;
  }
}
