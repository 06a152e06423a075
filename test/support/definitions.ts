import { TallyServer } from './tally.js';

export interface CapturedEvent {
  event: string;
  properties?: Record<string, unknown>;
  distinct_id?: string;
  timestamp?: string;
}

/** Sends events the way posthog-node does: `POST /batch/` with the project token in the body. */
export async function capture(server: TallyServer, token: string, events: CapturedEvent[]): Promise<void> {
  const response = await server.post(
    '/batch/',
    {
      api_key: token,
      batch: events.map((event) => ({
        event: event.event,
        distinct_id: event.distinct_id ?? 'user-1',
        properties: { $lib: 'posthog-node', ...event.properties },
        timestamp: event.timestamp ?? new Date().toISOString(),
      })),
    },
    { key: null },
  );
  if (response.status !== 200) throw new Error(`capture answered ${response.status}: ${response.text}`);
  // Ingestion time is the definitions' created_at: keep consecutive captures apart in time.
  await new Promise((resolve) => setTimeout(resolve, 5));
}

/** A server with a second project and keys of limited scopes, created before it starts. */
export async function startServerWithTwoProjects(scopeSets: string[]) {
  const server = new TallyServer(undefined, { TALLY_PROJECT_TOKEN: 'phc_definitions_project_one' });
  const second = server.createProject('Second');
  server.personalApiKey = server.createKey('*');
  const scopedKeys = new Map(scopeSets.map((scopes) => [scopes, server.createKey(scopes)]));
  await server.start();
  return { server, secondProject: second, scopedKeys, firstToken: 'phc_definitions_project_one' };
}

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function names(body: { results: { name: string }[] }): string[] {
  return body.results.map((result) => result.name);
}

export function validationError(attr: string | null, detail: string, code = 'invalid_input') {
  return { type: 'validation_error', code, detail, attr };
}
