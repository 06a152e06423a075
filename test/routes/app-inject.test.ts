import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { openStores, type OpenStores } from '../../src/stores.js';
import { ERRORS, tempDataDir } from '../support/tally.js';

/**
 * The HTTP layer in process (buildApp + inject, no listening server): authentication, scopes,
 * PostHog's error body, the environments alias and the OpenAPI document.
 */
describe('the app, injected', () => {
  const directory = tempDataDir('tally-inject-');
  let stores: OpenStores;
  let app: FastifyInstance;
  let adminKey: string;
  let insightKey: string;

  before(async () => {
    stores = await openStores(loadConfig({ TALLY_DATA_DIR: directory, LOG_LEVEL: 'error' }));
    app = await buildApp(stores.context, { logLevel: 'silent' });
    adminKey = stores.bootstrap!.personalApiKey;
    const user = await stores.context.accounts.firstUser();
    insightKey = (await stores.context.keys.create({ userId: user!.id, label: 'insights only', scopes: ['insight:read'], scopedTeams: null })).key;
  });
  after(async () => {
    await app.close();
    await stores.close();
    fs.rmSync(directory, { recursive: true, force: true });
  });

  const get = (url: string, key?: string) => app.inject({ method: 'GET', url, headers: key ? { authorization: `Bearer ${key}` } : {} });
  const post = (url: string, body: unknown, key: string) =>
    app.inject({ method: 'POST', url, payload: body as object, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' } });

  test('no key is a 401 with PostHog body; a key without the scope a 403 naming it', async () => {
    const anonymous = await get('/api/projects/1/persons/');
    assert.equal(anonymous.statusCode, 401);
    assert.deepEqual(anonymous.json(), ERRORS.notAuthenticated);
    const unscoped = await get('/api/projects/1/persons/', insightKey);
    assert.equal(unscoped.statusCode, 403);
    assert.deepEqual(unscoped.json(), ERRORS.missingScope('person:read'));
    // Authentication comes before the body is judged, as in PostHog.
    const badBody = await app.inject({ method: 'POST', url: '/api/projects/1/cohorts/', payload: '[]', headers: { 'content-type': 'application/json' } });
    assert.equal(badBody.statusCode, 401);
    assert.deepEqual(badBody.json(), ERRORS.notAuthenticated);
    const badBodyUnscoped = await post('/api/projects/1/cohorts/', [], insightKey);
    assert.equal(badBodyUnscoped.statusCode, 403);
    assert.deepEqual(badBodyUnscoped.json(), ERRORS.missingScope('cohort:write'));
  });

  test('bad input is a 400 naming the field; an unknown path a 404; both in PostHog body', async () => {
    const missing = await post('/api/projects/1/query/', {}, adminKey);
    assert.equal(missing.statusCode, 400);
    assert.deepEqual(missing.json(), { type: 'validation_error', code: 'required', detail: 'This field is required.', attr: 'query' });
    const unknown = await get('/api/projects/1/no-such-thing/', adminKey);
    assert.equal(unknown.statusCode, 404);
    assert.deepEqual(unknown.json(), ERRORS.notFound);
  });

  test('the query envelope, and the same answer under /api/environments/', async () => {
    const body = { query: { kind: 'HogQLQuery', query: 'select 1 + 1 as two' } };
    const projects = await post('/api/projects/1/query/', body, insightKey);
    assert.equal(projects.statusCode, 200);
    const answer = projects.json();
    assert.deepEqual(
      [answer.results, answer.columns, answer.types, answer.hasMore, answer.is_cached, answer.timezone],
      [[[2]], ['two'], [['two', 'Int64']], false, false, 'UTC'],
    );
    const environments = await post('/api/environments/1/query/', body, insightKey);
    assert.equal(environments.statusCode, 200);
    assert.deepEqual(environments.json().results, [[2]]);
  });

  test('the OpenAPI document lists the query endpoint with its request body', async () => {
    const response = await get('/api/schema/');
    assert.equal(response.statusCode, 200);
    const document = response.json();
    assert.match(document.openapi, /^3\./);
    const query = document.paths['/api/projects/{project_id}/query/'];
    assert.ok(query?.post?.requestBody, 'POST /query/ has a request body');
  });

  test('every answer carries its request id: a plain one the proxy sent, else a new UUID', async () => {
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
    const sent = await app.inject({ method: 'GET', url: '/_health', headers: { 'x-request-id': 'lb-7f3a:42' } });
    assert.equal(sent.headers['x-request-id'], 'lb-7f3a:42');
    const none = await get('/api/projects/1/persons/', adminKey);
    assert.match(String(none.headers['x-request-id']), uuid);
    for (const hostile of ['a b', 'x'.repeat(129), 'id\u0000', '<script>']) {
      const answer = await app.inject({ method: 'GET', url: '/_health', headers: { 'x-request-id': hostile } });
      assert.equal(answer.statusCode, 200);
      assert.match(String(answer.headers['x-request-id']), uuid, `${JSON.stringify(hostile)} is replaced`);
    }
    const failed = await get('/api/projects/1/persons/', 'phx_not_a_key');
    assert.equal(failed.statusCode, 401);
    assert.match(String(failed.headers['x-request-id']), uuid, 'errors carry it too');
  });
});
