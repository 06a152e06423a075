import type { DateTime } from 'luxon';
import type { Project } from '../projects/project.js';

/** A query node as the request holds it. */
export type QueryNode = Record<string, unknown>;

/** What a kind answers; the transport adds the cached envelope (`is_cached`, `last_refresh`, `timezone`, …). */
export type QueryResponse = Record<string, unknown>;

export interface QueryRunContext {
  project: Project;
  /** Where the node sits in the request body (`query`, `query.source`), for errors' `attr`. */
  path: string;
  now: DateTime;
}

/** One `kind` of the query API: validates its node and computes its answer. */
export interface QueryKind {
  run(node: QueryNode, context: QueryRunContext): Promise<QueryResponse>;
}
