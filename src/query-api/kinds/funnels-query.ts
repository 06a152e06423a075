import type { FunnelRunner } from '../../insights/funnels/funnel-runner.js';
import { funnelsQueryToFilter } from '../../insights/query-nodes/funnels-query.js';
import { runFunnelsQuery } from '../../insights/query-nodes/funnels-query-results.js';
import { resolvedDateRange } from '../../insights/query-nodes/resolved-date-range.js';
import type { Warehouse } from '../../storage/warehouse/warehouse.js';
import type { QueryKind, QueryNode, QueryResponse, QueryRunContext } from '../query-kind.js';

/** FunnelsQuery: translated to the legacy funnel filter and computed by the funnel runner, so its numbers are `/insights/funnel/`'s. */
export class FunnelsQueryKind implements QueryKind {
  constructor(
    private readonly funnels: FunnelRunner,
    private readonly warehouse: Warehouse,
  ) {}

  async run(node: QueryNode, { project, path, now }: QueryRunContext): Promise<QueryResponse> {
    const filter = funnelsQueryToFilter(node, path);
    return {
      results: await runFunnelsQuery(this.funnels, project, filter, path, now),
      // PostHog says whether its Rust funnel engine answered; Tally's funnels are the legacy ones.
      isUdf: false,
      resolved_date_range: await resolvedDateRange(this.warehouse, project, filter.dates, now),
      timings: [],
      modifiers: {},
    };
  }
}
