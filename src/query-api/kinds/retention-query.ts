import { projectClock } from '../../insights/actors/analysis-inputs.js';
import { retentionQueryToFilter } from '../../insights/query-nodes/retention-query.js';
import { runRetentionQuery } from '../../insights/query-nodes/retention-query-results.js';
import type { RetentionRunner } from '../../insights/retention/retention-runner.js';
import type { QueryKind, QueryNode, QueryResponse, QueryRunContext } from '../query-kind.js';
import { insightResponse } from './insight-response.js';

/** RetentionQuery: translated to the legacy retention filter and computed by the retention runner, so its numbers are `/insights/retention/`'s. */
export class RetentionQueryKind implements QueryKind {
  constructor(private readonly retention: RetentionRunner) {}

  async run(node: QueryNode, { project, path, now }: QueryRunContext): Promise<QueryResponse> {
    const plan = retentionQueryToFilter(node, path, projectClock(project, now));
    return insightResponse(await runRetentionQuery(this.retention, project, plan));
  }
}
