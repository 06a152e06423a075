import type { LifecycleRunner } from '../../insights/lifecycle/lifecycle-runner.js';
import { lifecycleQueryToFilter } from '../../insights/query-nodes/lifecycle-query.js';
import { runLifecycleQuery } from '../../insights/query-nodes/lifecycle-query-results.js';
import type { QueryKind, QueryNode, QueryResponse, QueryRunContext } from '../query-kind.js';
import { insightResponse } from './insight-response.js';

/** LifecycleQuery: translated to the legacy lifecycle filter and computed by the lifecycle runner, so its numbers are `/insights/trend/`'s with `insight=LIFECYCLE`. */
export class LifecycleQueryKind implements QueryKind {
  constructor(private readonly lifecycle: LifecycleRunner) {}

  async run(node: QueryNode, { project, path, now }: QueryRunContext): Promise<QueryResponse> {
    const plan = lifecycleQueryToFilter(node, path);
    return insightResponse(await runLifecycleQuery(this.lifecycle, project, plan, now));
  }
}
