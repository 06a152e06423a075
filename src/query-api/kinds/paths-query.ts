import type { PathRunner } from '../../insights/paths/path-runner.js';
import { pathsQueryToFilter } from '../../insights/query-nodes/paths-query.js';
import { runPathsQuery } from '../../insights/query-nodes/paths-query-results.js';
import type { QueryKind, QueryNode, QueryResponse, QueryRunContext } from '../query-kind.js';
import { insightResponse } from './insight-response.js';

/** PathsQuery: translated to the legacy paths filter and computed by the path runner, so its edges are `/insights/path/`'s. */
export class PathsQueryKind implements QueryKind {
  constructor(private readonly paths: PathRunner) {}

  async run(node: QueryNode, { project, path, now }: QueryRunContext): Promise<QueryResponse> {
    const plan = pathsQueryToFilter(node, path);
    return insightResponse(await runPathsQuery(this.paths, project, plan, now));
  }
}
