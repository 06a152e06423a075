import assert from 'node:assert/strict';
import { TallyServer, type ApiResponse } from './tally.js';

/** An event as PostHog's query runner tests create them. */
export interface InsightEvent {
  event: string;
  distinct_id: string;
  timestamp: string;
  properties?: Record<string, unknown>;
}

export interface InsightQueryServer {
  server: TallyServer;
  /** The scenario projects, by name, each with its own events. */
  projects: Record<string, { id: number; api_token: string }>;
  /** Keys of the scopes asked for, by their scopes. */
  keys: Record<string, string>;
}

/**
 * A server with one project per scenario (PostHog's tests each start from an empty team) and
 * keys of the given scopes, created before it starts.
 */
export async function startInsightQueryServer(
  projectNames: string[],
  scopeSets: string[],
  timezones: Record<string, string> = {},
): Promise<InsightQueryServer> {
  const server = new TallyServer();
  const projects = Object.fromEntries(projectNames.map((name) => [name, server.createProject(name, timezones[name])]));
  server.personalApiKey = server.createKey('*');
  const keys = Object.fromEntries(scopeSets.map((scopes) => [scopes, server.createKey(scopes)]));
  await server.start();
  return { server, projects, keys };
}

/** Sends a scenario's events through `/batch/`, as posthog-node does. */
export async function sendEvents(server: TallyServer, token: string, batch: InsightEvent[]): Promise<void> {
  const response = await server.request('POST', '/batch/', { key: null, body: { api_key: token, batch } });
  assert.equal(response.status, 200, response.text);
}

/** `POST /api/projects/:id/query/` with a node (wrapped or not). */
export function postQuery<T = any>(server: TallyServer, projectId: number, query: unknown, key?: string): Promise<ApiResponse<T>> {
  return server.post<T>(`/api/projects/${projectId}/query/`, { query }, key === undefined ? {} : { key });
}

/** The `results` of a query that must answer 200. */
export async function queryResults<T = any>(server: TallyServer, projectId: number, query: unknown): Promise<T> {
  const response = await postQuery(server, projectId, query);
  assert.equal(response.status, 200, response.text);
  return response.body.results as T;
}

/** PostHog's 400 body naming `attr`. */
export function invalid(attr: string, detail: string, code = 'invalid_input') {
  return { type: 'validation_error', code, detail, attr };
}

/** Asserts a query answers 400 naming `attr` (and `detail`, when given). */
export async function assertRefused(server: TallyServer, projectId: number, query: unknown, attr: string, detail?: string): Promise<void> {
  const response = await postQuery(server, projectId, query);
  assert.equal(response.status, 400, `${attr}: ${response.text}`);
  assert.equal(response.body.attr, attr, response.text);
  assert.equal(response.body.type, 'validation_error');
  if (detail !== undefined) assert.equal(response.body.detail, detail);
}
