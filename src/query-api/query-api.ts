import { randomUUID } from 'node:crypto';
import { DateTime } from 'luxon';
import { NotFound, ValidationError } from '../errors.js';
import type { Project } from '../projects/project.js';
import type { QueryDispatch } from './dispatch.js';
import { isObject } from './node-fields.js';
import type { QueryResponse } from './query-kind.js';
import type { QueryStatus, QueryStatusStore } from './query-status-store.js';
import { withDeadline } from './warehouse-execution.js';

/** PostHog's refresh modes; Tally computes every one of them before answering. */
const REFRESH_MODES = new Set(['blocking', 'force_blocking', 'async', 'force_async', 'lazy_async', 'force_cache', 'true', 'false']);
/** Modes whose answer carries a `query_status`. */
const ASYNC_MODES = new Set(['async', 'force_async', 'lazy_async']);

export interface QueryRequest {
  query: unknown;
  refresh?: unknown;
  client_query_id?: unknown;
  name?: unknown;
  async?: unknown;
}

function refreshMode(value: unknown): string {
  if (value === undefined || value === null) return 'blocking';
  if (typeof value === 'boolean') return String(value);
  if (typeof value !== 'string' || !REFRESH_MODES.has(value)) {
    throw new ValidationError('refresh', `"${String(value)}" is not a valid refresh mode: use one of ${[...REFRESH_MODES].join(', ')}.`, 'invalid_choice');
  }
  return value;
}

/**
 * The query API's transport: `POST /query/` runs the node its kind names (through the
 * dispatch table) and answers it in PostHog's cached envelope; async modes answer the same,
 * complete, with a `query_status` kept for `GET /query/:id/`.
 */
export class QueryApi {
  constructor(
    private readonly dispatch: QueryDispatch,
    private readonly statuses: QueryStatusStore,
    private readonly timeoutSeconds: number,
  ) {}

  async run(project: Project, request: QueryRequest, pathKind: string | null = null): Promise<QueryResponse> {
    if (request.query === undefined || request.query === null) throw new ValidationError('query', 'This field is required.', 'required');
    const mode = refreshMode(request.refresh);
    const legacyAsync = request.async;
    if (legacyAsync !== undefined && legacyAsync !== null && typeof legacyAsync !== 'boolean') throw new ValidationError('async', 'Must be a boolean.');
    const clientQueryId = request.client_query_id;
    if (clientQueryId !== undefined && clientQueryId !== null && (typeof clientQueryId !== 'string' || clientQueryId === '' || clientQueryId.length > 200)) {
      throw new ValidationError('client_query_id', 'Must be a non-empty string of at most 200 characters.');
    }
    if (pathKind !== null && isObject(request.query) && request.query.kind !== pathKind) {
      throw new ValidationError('query.kind', `Query kind mismatch: path kind "${pathKind}" does not match body kind "${String(request.query.kind)}".`);
    }
    const started = new Date();
    const now = DateTime.fromJSDate(started);
    const { kind, node, path } = this.dispatch.resolve(request.query);
    // Kinds computed by other runners (TrendsQuery) answer within the same time limit as HogQL.
    const result = await withDeadline(kind.run(node, { project, path, now }), this.timeoutSeconds);
    const response: QueryResponse = {
      ...result,
      is_cached: false,
      last_refresh: started.toISOString(),
      next_allowed_client_refresh: started.toISOString(),
      cache_key: null,
      timezone: project.timezone,
      timings: result.timings ?? [],
    };
    if (ASYNC_MODES.has(mode) || legacyAsync === true) {
      const id = typeof clientQueryId === 'string' ? clientQueryId : randomUUID();
      response.query_status = this.statuses.save(project.id, id, started, response);
    }
    return response;
  }

  status(project: Project, id: string): QueryStatus {
    const status = this.statuses.get(project.id, id);
    if (!status) throw new NotFound();
    return status;
  }

  cancel(project: Project, id: string): void {
    this.statuses.delete(project.id, id);
  }
}
