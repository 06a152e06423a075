import { resolvedDateRange } from '../../insights/query-nodes/resolved-date-range.js';
import { trendsQueryToFilter } from '../../insights/query-nodes/trends-query.js';
import { hasOtherBucket, runTrendsQuery } from '../../insights/query-nodes/trends-query-results.js';
import type { TrendService } from '../../insights/trends/trend-service.js';
import type { Warehouse } from '../../storage/warehouse/warehouse.js';
import type { QueryKind, QueryNode, QueryResponse, QueryRunContext } from '../query-kind.js';

/** TrendsQuery: translated to the legacy trend filter and computed by the trend runner, so its numbers are `/insights/trend/`'s. */
export class TrendsQueryKind implements QueryKind {
  constructor(
    private readonly trends: TrendService,
    private readonly warehouse: Warehouse,
  ) {}

  async run(node: QueryNode, { project, path, now }: QueryRunContext): Promise<QueryResponse> {
    const plan = trendsQueryToFilter(node, path);
    const results = await runTrendsQuery(this.trends, project, plan, { now });
    return {
      results,
      hasMore: hasOtherBucket(results),
      resolved_date_range: await resolvedDateRange(this.warehouse, project, plan.filter.dates, now),
      timings: [],
      modifiers: {},
    };
  }
}
