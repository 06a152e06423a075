import { projectClock } from '../../insights/actors/analysis-inputs.js';
import { actorsQueryToPlan, actorsSourceToPlan } from '../../insights/query-nodes/actors-query.js';
import { runActorsQuery, type ActorsQueryServices } from '../../insights/query-nodes/actors-query-results.js';
import type { QueryKind, QueryNode, QueryResponse, QueryRunContext } from '../query-kind.js';

/**
 * ActorsQuery: the persons behind one data point of an insight (its `source`), computed by the
 * services of the legacy `/persons/<kind>/` endpoints, or the project's persons without a source.
 */
export class ActorsQueryKind implements QueryKind {
  constructor(private readonly services: ActorsQueryServices) {}

  async run(node: QueryNode, { project, path, now }: QueryRunContext): Promise<QueryResponse> {
    const plan = actorsQueryToPlan(node, path, projectClock(project, now));
    return { ...(await runActorsQuery(this.services, project, plan, now)), timings: [], modifiers: {} };
  }
}

/**
 * InsightActorsQuery, FunnelsActorsQuery, StickinessActorsQuery and FunnelCorrelationActorsQuery
 * sent as the query itself: answered as an ActorsQuery of that source with the default columns.
 */
export class ActorsSourceKind implements QueryKind {
  constructor(private readonly services: ActorsQueryServices) {}

  async run(node: QueryNode, { project, path, now }: QueryRunContext): Promise<QueryResponse> {
    const plan = actorsSourceToPlan(node, path, projectClock(project, now));
    return { ...(await runActorsQuery(this.services, project, plan, now)), timings: [], modifiers: {} };
  }
}
