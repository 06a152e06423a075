import assert from 'node:assert/strict';
import { after, before, describe, mock, test } from 'node:test';
import { PostHog } from 'posthog-node';
import { ERRORS, TallyServer } from '../support/tally.js';

const TOKEN = 'phc_local_evaluation_one';
const EMPTY = { flags: [], group_type_mapping: {}, cohorts: {} };

/** Flag definitions for local evaluation: Tally has no flags, and says so to every server SDK. */
describe('flag definitions for local evaluation', () => {
  let server: TallyServer;
  let second: { id: number; api_token: string };
  let flagRead: string;
  let flagWrite: string;
  let personRead: string;
  let scopedToSecond: string;

  before(async () => {
    server = new TallyServer(undefined, { TALLY_PROJECT_TOKEN: TOKEN });
    second = server.createProject('Second');
    server.personalApiKey = server.createKey('*');
    flagRead = server.createKey('feature_flag:read');
    flagWrite = server.createKey('feature_flag:write');
    personRead = server.createKey('person:read');
    scopedToSecond = server.createKey('feature_flag:read', [second.id]);
    await server.start();
    server.projectToken = TOKEN;
    const groups = await server.post(
      '/batch/',
      {
        api_key: second.api_token,
        batch: [
          { event: '$groupidentify', distinct_id: 'u1', properties: { $group_type: 'company', $group_key: 'acme', $group_set: { name: 'Acme' } } },
          { event: '$groupidentify', distinct_id: 'u1', properties: { $group_type: 'team', $group_key: 'red', $group_set: {} } },
        ],
      },
      { key: null },
    );
    assert.equal(groups.status, 200);
  });
  after(() => server.dispose());

  test('/flags/definitions answers no flags, no cohorts and the project group types', async () => {
    const first = await server.get(`/flags/definitions?token=${TOKEN}&send_cohorts`, { key: flagRead });
    assert.equal(first.status, 200);
    assert.deepEqual(first.body, EMPTY);
    const withGroups = await server.get(`/flags/definitions/?token=${second.api_token}&send_cohorts`);
    assert.equal(withGroups.status, 200);
    assert.deepEqual(withGroups.body, { flags: [], group_type_mapping: { '0': 'company', '1': 'team' }, cohorts: {} });
  });

  test('the older /api/feature_flag/local_evaluation answers the same, with and without the slash', async () => {
    for (const pathname of ['/api/feature_flag/local_evaluation/', '/api/feature_flag/local_evaluation']) {
      const response = await server.get(`${pathname}?token=${TOKEN}&send_cohorts`, { key: flagRead });
      assert.equal(response.status, 200, pathname);
      assert.deepEqual(response.body, EMPTY);
    }
  });

  test('an unchanged answer is 304 to its ETag', async () => {
    const first = await server.get(`/flags/definitions?token=${TOKEN}`, { key: flagRead });
    const etag = first.headers.get('etag')!;
    assert.match(etag, /^"[A-Za-z0-9_-]{32}"$/);
    const again = await server.get(`/flags/definitions?token=${TOKEN}`, { key: flagRead, headers: { 'if-none-match': etag } });
    assert.equal(again.status, 304);
    assert.equal(again.text, '');
    const otherProject = await server.get(`/flags/definitions?token=${second.api_token}`, { headers: { 'if-none-match': etag } });
    assert.equal(otherProject.status, 200);
  });

  test('feature_flag:read is required (write implies it)', async () => {
    assert.equal((await server.get(`/flags/definitions?token=${TOKEN}`, { key: flagWrite })).status, 200);
    const denied = await server.get(`/flags/definitions?token=${TOKEN}`, { key: personRead });
    assert.equal(denied.status, 403);
    assert.deepEqual(denied.body, ERRORS.missingScope('feature_flag:read'));
  });

  test('no key, an unknown key or a key in the query string is 401', async () => {
    const none = await server.get(`/flags/definitions?token=${TOKEN}`, { key: null });
    assert.equal(none.status, 401);
    assert.deepEqual(none.body, ERRORS.notAuthenticated);
    const inQuery = await server.get(`/flags/definitions?token=${TOKEN}&personal_api_key=${flagRead}`, { key: null });
    assert.equal(inQuery.status, 401);
    assert.deepEqual(inQuery.body, ERRORS.notAuthenticated);
    const unknown = await server.get(`/flags/definitions?token=${TOKEN}`, { key: 'phx_unknown' });
    assert.equal(unknown.status, 401);
    assert.deepEqual(unknown.body, {
      type: 'authentication_error',
      code: 'authentication_failed',
      detail: 'Personal API key found in request Authorization header is invalid.',
      attr: null,
    });
  });

  test('a missing token is 400 on token; an unknown one, or a personal API key, is 401 invalid_api_key', async () => {
    for (const query of ['', '?send_cohorts', '?token=', '?token=%20']) {
      const missing = await server.get(`/flags/definitions${query}`);
      assert.equal(missing.status, 400, query);
      assert.deepEqual(missing.body, { type: 'validation_error', code: 'required', detail: 'This field is required.', attr: 'token' });
    }
    for (const token of ['phc_unknown', server.personalApiKey, 'x'.repeat(500)]) {
      const unknown = await server.get(`/flags/definitions?token=${token}`);
      assert.equal(unknown.status, 401);
      assert.deepEqual(unknown.body, {
        type: 'authentication_error',
        code: 'invalid_api_key',
        detail: 'Project API key invalid. You can find your project API key in PostHog project settings.',
        attr: null,
      });
    }
  });

  test("a key limited to other projects is 403 on this project's token", async () => {
    const own = await server.get(`/flags/definitions?token=${second.api_token}`, { key: scopedToSecond });
    assert.equal(own.status, 200);
    const other = await server.get(`/flags/definitions?token=${TOKEN}`, { key: scopedToSecond });
    assert.equal(other.status, 403);
    assert.deepEqual(other.body, ERRORS.permissionDenied(`API key does not have access to the requested project: ID 1.`));
  });

  test('posthog-node polls the definitions, evaluates no flag locally and logs nothing', async () => {
    const requests: string[] = [];
    const logged = [mock.method(console, 'error'), mock.method(console, 'warn')];
    const client = new PostHog(TOKEN, {
      host: server.url,
      personalApiKey: flagRead,
      featureFlagsPollingInterval: 100,
      strictLocalEvaluation: true,
      flushAt: 1,
      flushInterval: 0,
      fetch: async (url, options) => {
        requests.push(new URL(url).pathname);
        return fetch(url, options as RequestInit);
      },
    });
    const errors: unknown[] = [];
    const loaded: number[] = [];
    client.on('error', (error) => errors.push(error));
    client.on('localEvaluationFlagsLoaded', (count: number) => loaded.push(count));
    try {
      assert.equal(await client.getFeatureFlag('new-checkout', 'u1'), undefined);
      assert.equal(await client.isFeatureEnabled('new-checkout', 'u1'), undefined);
      assert.deepEqual(await client.getAllFlags('u1'), {});
      const evaluated = await client.evaluateFlags('u1');
      assert.equal(evaluated.isEnabled('new-checkout'), false);
      assert.equal(evaluated.getFlag('new-checkout'), undefined);
      // Polls that answer 304 keep the definitions, without an error: wait for a few (a loaded machine polls late).
      const polls = () => requests.filter((pathname) => pathname === '/flags/definitions').length;
      for (const deadline = Date.now() + 10_000; polls() < 3 && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 50));
      await client.shutdown();
      assert.deepEqual(errors, []);
      assert.deepEqual(loaded, [0]);
      // posthog-node's own notices that getFeatureFlag and isFeatureEnabled are deprecated aside.
      const messages = logged.flatMap((spy) => spy.mock.calls.map((call) => String(call.arguments[0])));
      assert.deepEqual(
        messages.filter((message) => !/^\[PostHog\] `\w+` is deprecated/.test(message)),
        [],
      );
      assert.equal(requests.filter((pathname) => pathname === '/flags/' || pathname === '/flags').length, 0, 'no remote evaluation');
      assert.ok(polls() >= 3, requests.join(' '));
    } finally {
      for (const spy of logged) spy.mock.restore();
    }
  });

  test('posthog-node without strict local evaluation asks /flags for a flag it does not know, and gets none', async () => {
    const requests: string[] = [];
    const client = new PostHog(TOKEN, {
      host: server.url,
      personalApiKey: flagRead,
      featureFlagsPollingInterval: null,
      flushAt: 1,
      flushInterval: 0,
      fetch: async (url, options) => {
        requests.push(new URL(url).pathname);
        return fetch(url, options as RequestInit);
      },
    });
    const errors: unknown[] = [];
    client.on('error', (error) => errors.push(error));
    assert.equal(await client.getFeatureFlag('new-checkout', 'u1', { sendFeatureFlagEvents: false }), undefined);
    await client.shutdown();
    assert.deepEqual(errors, []);
    assert.deepEqual(requests, ['/flags/definitions', '/flags/']);
  });
});
