import { capture } from './definitions.js';
import { TallyServer, type ApiResponse } from './tally.js';

/** Project 1's token on query API test servers. */
export const QUERY_TOKEN = 'phc_query_project_one';

export interface QueryServer {
  server: TallyServer;
  /** A second project whose rows no query of project 1 may ever see. */
  foreign: { id: number; api_token: string };
  keys: Record<string, string>;
}

/**
 * A server with a second project and keys of the given scopes, created before it starts;
 * `scopes@1` is a key limited to project 1.
 */
export async function startQueryServer(scopeSets: string[], env: Record<string, string> = {}): Promise<QueryServer> {
  const server = new TallyServer(undefined, { TALLY_PROJECT_TOKEN: QUERY_TOKEN, ...env });
  const foreign = server.createProject('Foreign');
  server.personalApiKey = server.createKey('*');
  const keys = Object.fromEntries(
    scopeSets.map((name) => {
      const [scopes, project] = name.split('@');
      return [name, server.createKey(scopes!, project ? [Number(project)] : [])];
    }),
  );
  await server.start();
  return { server, foreign, keys };
}

/** Events of the foreign project, marked so that any leak is visible in a response's text. */
export async function captureForeignEvents(server: TallyServer, token: string): Promise<void> {
  await capture(server, token, [
    {
      event: 'foreign_secret',
      distinct_id: 'foreign_user',
      properties: { marker: 'FOREIGN_MARKER', $browser: 'FOREIGN_MARKER' },
      timestamp: '2024-01-01T00:00:00Z',
    },
    { event: '$pageview', distinct_id: 'shared_id', properties: { marker: 'FOREIGN_MARKER' }, timestamp: '2024-01-02T00:00:00Z' },
    { event: '$identify', distinct_id: 'shared_id', properties: { $set: { email: 'FOREIGN_MARKER@example.com' } }, timestamp: '2024-01-02T00:00:01Z' },
  ]);
}

export function runQuery<T = any>(
  server: TallyServer,
  query: unknown,
  options: { project?: number; key?: string; extra?: Record<string, unknown> } = {},
): Promise<ApiResponse<T>> {
  return server.post<T>(`/api/projects/${options.project ?? 1}/query/`, { query, ...options.extra }, options.key ? { key: options.key } : {});
}

export function hogql<T = any>(server: TallyServer, query: string, values?: Record<string, unknown>): Promise<ApiResponse<T>> {
  return runQuery<T>(server, { kind: 'HogQLQuery', query, ...(values ? { values } : {}) });
}
