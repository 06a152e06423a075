import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { PostHog } from 'posthog-node';
import { TallyServer } from '../support/tally.js';

/** Tally has no feature flags: the SDKs' start-up calls get "no flags", never an error. */
describe('flags endpoints', () => {
  let server: TallyServer;
  before(async () => {
    server = await TallyServer.start();
  });
  after(() => server.dispose());

  test('/flags?v=2 answers the flags shape, /decide the older one', async () => {
    const flags = await server.post('/flags/?v=2', { token: server.projectToken, distinct_id: 'u1' }, { key: null });
    assert.equal(flags.status, 200);
    assert.deepEqual(flags.body.flags, {});
    assert.equal(flags.body.errorsWhileComputingFlags, false);
    assert.match(flags.body.requestId, /^[0-9a-f-]{36}$/);

    const decide = await server.request('POST', '/decide/?v=3', {
      key: null,
      rawBody: zlib.gzipSync(JSON.stringify({ api_key: server.projectToken, distinct_id: 'u1' })),
      headers: { 'content-type': 'text/plain', origin: 'https://app.example' },
    });
    assert.equal(decide.status, 200);
    assert.deepEqual(decide.body.featureFlags, {});
    assert.deepEqual(decide.body.featureFlagPayloads, {});
    assert.equal(decide.headers.get('access-control-allow-origin'), 'https://app.example');
  });

  test('a missing or unknown token is 401 with the capture error bodies', async () => {
    const missing = await server.post('/flags/?v=2', { distinct_id: 'u1' }, { key: null });
    assert.equal(missing.status, 401);
    assert.equal(missing.body.code, 'missing_api_key');
    const unknown = await server.post('/flags/?v=2', { token: 'phc_unknown', distinct_id: 'u1' }, { key: null });
    assert.equal(unknown.status, 401);
    assert.equal(unknown.body.code, 'invalid_api_key');
    const personal = await server.post('/flags/?v=2', { token: server.personalApiKey, distinct_id: 'u1' }, { key: null });
    assert.equal(personal.status, 401);
    const malformed = await server.request('POST', '/flags/?v=2', { key: null, rawBody: '{', headers: { 'content-type': 'application/json' } });
    assert.equal(malformed.status, 400);
  });

  test('posthog-node asks for flags and gets none', async () => {
    const client = new PostHog(server.projectToken, { host: server.url, flushAt: 1, flushInterval: 0 });
    const errors: unknown[] = [];
    client.on('error', (error) => errors.push(error));
    assert.equal(await client.isFeatureEnabled('new-checkout', 'u1'), undefined, 'posthog-node: an unknown flag is undefined');
    assert.deepEqual(await client.getAllFlags('u1'), {});
    await client.shutdown();
    assert.deepEqual(errors, []);
  });
});
