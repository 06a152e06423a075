import type { CorrelationRunner } from '../../insights/funnels/correlation-runner.js';
import { funnelCorrelationQueryToFilter } from '../../insights/query-nodes/funnel-correlation-query.js';
import { runFunnelCorrelationQuery } from '../../insights/query-nodes/funnel-correlation-query-results.js';
import type { QueryKind, QueryNode, QueryResponse, QueryRunContext } from '../query-kind.js';

/**
 * FunnelCorrelationQuery: translated to the legacy correlation filter and computed by the
 * correlation runner, so its rows are `/insights/funnel/correlation/`'s.
 */
export class FunnelCorrelationQueryKind implements QueryKind {
  constructor(private readonly correlation: CorrelationRunner) {}

  async run(node: QueryNode, { project, path, now }: QueryRunContext): Promise<QueryResponse> {
    const filter = funnelCorrelationQueryToFilter(node, path);
    return { ...(await runFunnelCorrelationQuery(this.correlation, project, filter, path, now)), timings: [], modifiers: {} };
  }
}
