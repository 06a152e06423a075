import { randomBytes } from 'node:crypto';
import { TallyServer, tempDataDir } from './tally.js';

export const PERSONS = '/api/projects/1/persons';

export interface ServerWithKeys {
  server: TallyServer;
  /** Personal API keys by name, created with the scopes asked for. */
  keys: Record<string, string>;
}

/**
 * A server whose bootstrap token and key are known (so keys can be created offline before it
 * starts), plus extra keys with chosen scopes.
 */
export async function startWithKeys(scopes: Record<string, string> = {}, env: Record<string, string> = {}): Promise<ServerWithKeys> {
  const projectToken = `phc_${randomBytes(16).toString('hex')}`;
  const personalApiKey = `phx_${randomBytes(20).toString('hex')}`;
  const server = new TallyServer(tempDataDir('persons-test-'), {
    TALLY_PROJECT_TOKEN: projectToken,
    TALLY_PERSONAL_API_KEY: personalApiKey,
    ...env,
  });
  const keys: Record<string, string> = {};
  for (const [name, keyScopes] of Object.entries(scopes)) {
    keys[name] = server.createKey(keyScopes);
  }
  await server.start();
  server.projectToken = projectToken;
  server.personalApiKey = personalApiKey;
  return { server, keys };
}

/** The person that owns a distinct id, through the list's `distinct_id` filter. */
export async function personOf(server: TallyServer, distinctId: string): Promise<any> {
  const response = await server.get(`${PERSONS}/?distinct_id=${encodeURIComponent(distinctId)}`);
  if (response.status !== 200) throw new Error(`list answered ${response.status}: ${response.text}`);
  return response.body.results[0];
}

export function validationError(detail: string, attr: string | null = null, code = 'invalid_input') {
  return { type: 'validation_error', code, detail, attr };
}

export function badPersonId(value: string) {
  return validationError(`The ID provided does not look like a personID. If you are using a distinctId, please use /persons?distinct_id=${value} instead.`);
}

/** A JSON value as a query-string parameter. */
export function jsonParam(value: unknown): string {
  return encodeURIComponent(JSON.stringify(value));
}
