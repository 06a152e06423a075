import { stickinessQueryToFilter } from '../../insights/query-nodes/stickiness-query.js';
import { runStickinessQuery } from '../../insights/query-nodes/stickiness-query-results.js';
import type { StickinessRunner } from '../../insights/stickiness/stickiness-runner.js';
import type { QueryKind, QueryNode, QueryResponse, QueryRunContext } from '../query-kind.js';
import { insightResponse } from './insight-response.js';

/** StickinessQuery: translated to the legacy stickiness filter and computed by the stickiness runner, so its numbers are `/insights/trend/`'s with `insight=STICKINESS`. */
export class StickinessQueryKind implements QueryKind {
  constructor(private readonly stickiness: StickinessRunner) {}

  async run(node: QueryNode, { project, path, now }: QueryRunContext): Promise<QueryResponse> {
    const plan = stickinessQueryToFilter(node, path);
    return insightResponse(await runStickinessQuery(this.stickiness, project, plan, now));
  }
}
