import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { capture, names, startServerWithTwoProjects, validationError } from '../support/definitions.js';
import { ERRORS, type TallyServer } from '../support/tally.js';

const BASE = '/api/projects/1/property_definitions/';

/** Event properties of project 1 as listed by default ($ip is added by capture; distinct_id is always left out). */
const EVENT_PROPERTIES = ['$browser', '$current_url', '$ip', '$lib', 'build', 'custom_thing', 'gclid', 'plan', 'revenue', 'source', 'utm_source'];
/** What exclude_core_properties leaves: no `$` names and none of PostHog's other core event properties. */
const OWN_EVENT_PROPERTIES = ['custom_thing', 'plan'];

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('property definitions: core, hidden and verified', () => {
  let server: TallyServer;
  let secondProjectId: number;
  let readOnlyKey: string;
  let otherScopeKey: string;
  let secondProjectDefinitionId: string;

  before(async () => {
    const started = await startServerWithTwoProjects(['property_definition:read', 'event_definition:write']);
    server = started.server;
    secondProjectId = started.secondProject.id;
    readOnlyKey = started.scopedKeys.get('property_definition:read')!;
    otherScopeKey = started.scopedKeys.get('event_definition:write')!;
    await capture(server, started.firstToken, [
      {
        event: '$pageview',
        properties: { $browser: 'Firefox', $current_url: 'https://tally.dev/', utm_source: 'newsletter', gclid: 'g-1', distinct_id: 'user-1' },
      },
      { event: 'purchase', properties: { plan: 'pro', revenue: 12.5, custom_thing: 'x', source: 'web', build: '42', $set: { email: 'ada@tally.dev' } } },
    ]);
    await capture(server, started.secondProject.api_token, [{ event: 'other', properties: { secret_prop: 1 } }]);
    const other = await server.get(`/api/projects/${secondProjectId}/property_definitions/?properties=secret_prop`);
    secondProjectDefinitionId = other.body.results[0].id;
  });
  after(() => server.dispose());

  async function list(query = '', path = BASE) {
    const response = await server.get(`${path}${query}`);
    assert.equal(response.status, 200, response.text);
    return response.body;
  }

  async function idOf(name: string): Promise<string> {
    return (await list(`?properties=${name}`)).results[0].id;
  }

  async function patch(name: string, body: object) {
    return server.patch(`${BASE}${await idOf(name)}/`, body);
  }

  test('definitions carry hidden and verified, false until changed', async () => {
    const body = await list('?properties=plan');
    assert.deepEqual(body.results, [
      {
        id: body.results[0].id,
        name: 'plan',
        description: null,
        tags: [],
        is_numerical: false,
        property_type: 'String',
        updated_at: null,
        is_seen_on_filtered_events: null,
        hidden: false,
        verified: false,
      },
    ]);
    assert.deepEqual((await server.get(`${BASE}${body.results[0].id}/`)).body, body.results[0]);
  });

  test('exclude_core_properties drops $ names and the core event properties of the taxonomy', async () => {
    assert.deepEqual(names(await list()), EVENT_PROPERTIES);
    for (const value of ['true', '1', 'True']) {
      const body = await list(`?exclude_core_properties=${value}`);
      assert.deepEqual(names(body), OWN_EVENT_PROPERTIES, value);
      assert.equal(body.count, OWN_EVENT_PROPERTIES.length);
    }
    for (const value of ['false', '0', '']) assert.deepEqual(names(await list(`?exclude_core_properties=${value}`)), EVENT_PROPERTIES, value);
    assert.deepEqual(names(await list('?exclude_core_properties=true&search=pl')), ['plan']);
    assert.deepEqual(names(await list('?exclude_core_properties=true&type=person')), names(await list('?type=person')), 'event properties only');
  });

  test('PATCH hidden and verified: hiding un-verifies, verifying un-hides, both at once is refused', async () => {
    const hidden = await patch('custom_thing', { hidden: true });
    assert.equal(hidden.status, 200, hidden.text);
    assert.equal(hidden.body.hidden, true);
    assert.equal(hidden.body.verified, false);
    assert.match(hidden.body.updated_at, ISO);

    const verified = await patch('custom_thing', { verified: 1 });
    assert.deepEqual([verified.body.hidden, verified.body.verified], [false, true]);
    const hiddenAgain = await patch('custom_thing', { hidden: 'true' });
    assert.deepEqual([hiddenAgain.body.hidden, hiddenAgain.body.verified], [true, false]);
    const both = await patch('custom_thing', { hidden: true, verified: true });
    assert.equal(both.status, 400);
    assert.deepEqual(both.body, validationError(null, 'A property cannot be both hidden and verified'));
    const explicit = await patch('custom_thing', { hidden: false, verified: false });
    assert.deepEqual([explicit.body.hidden, explicit.body.verified], [false, false]);
    const unchanged = await server.get(`${BASE}${await idOf('custom_thing')}/`);
    assert.deepEqual([unchanged.body.hidden, unchanged.body.verified], [false, false]);
  });

  test('exclude_hidden drops hidden definitions', async () => {
    assert.equal((await patch('revenue', { hidden: true })).status, 200);
    try {
      assert.deepEqual(
        names(await list('?exclude_hidden=true')),
        EVENT_PROPERTIES.filter((name) => name !== 'revenue'),
      );
      assert.deepEqual(names(await list('?exclude_hidden=0')), EVENT_PROPERTIES);
      assert.deepEqual(names(await list('?exclude_hidden=1&exclude_core_properties=1')), OWN_EVENT_PROPERTIES);
      assert.equal((await patch('plan', { hidden: true })).status, 200);
      assert.deepEqual(names(await list('?exclude_hidden=1&exclude_core_properties=1')), ['custom_thing']);
      assert.deepEqual((await list('?exclude_hidden=true&properties=plan,revenue')).count, 0);
    } finally {
      await patch('revenue', { hidden: false });
      await patch('plan', { hidden: false });
    }
  });

  test('boolean parameters and fields take true/false/1/0 only; anything else is a 400 naming it', async () => {
    const invalid = (attr: string) => validationError(attr, 'Must be a valid boolean.', 'invalid');
    const queries: [string, string][] = [
      ['exclude_core_properties=yes', 'exclude_core_properties'],
      ['exclude_hidden=maybe', 'exclude_hidden'],
      ['is_numerical=on', 'is_numerical'],
      ['is_feature_flag=t', 'is_feature_flag'],
      ['filter_by_event_names=2', 'filter_by_event_names'],
      ['type=person&exclude_core_properties=nope', 'exclude_core_properties'],
    ];
    for (const [query, attr] of queries) {
      const response = await server.get(`${BASE}?${query}`);
      assert.equal(response.status, 400, query);
      assert.deepEqual(response.body, invalid(attr), query);
    }
    const id = await idOf('plan');
    for (const [body, attr] of [
      [{ hidden: 'yes' }, 'hidden'],
      [{ hidden: null }, 'hidden'],
      [{ verified: 2 }, 'verified'],
      [{ verified: [] }, 'verified'],
    ] as const) {
      const response = await server.patch(`${BASE}${id}/`, body);
      assert.equal(response.status, 400, JSON.stringify(body));
      assert.deepEqual(response.body, invalid(attr), JSON.stringify(body));
    }
    assert.deepEqual([(await server.get(`${BASE}${id}/`)).body.hidden, (await server.get(`${BASE}${id}/`)).body.verified], [false, false]);
  });

  test('scopes: reading needs property_definition:read, PATCH property_definition:write', async () => {
    const id = await idOf('plan');
    const patchDenied = await server.patch(`${BASE}${id}/`, { hidden: true }, { key: readOnlyKey });
    assert.equal(patchDenied.status, 403);
    assert.deepEqual(patchDenied.body, ERRORS.missingScope('property_definition:write'));
    assert.equal((await server.get(`${BASE}?exclude_hidden=true`, { key: readOnlyKey })).status, 200);
    const listDenied = await server.get(`${BASE}?exclude_core_properties=true`, { key: otherScopeKey });
    assert.equal(listDenied.status, 403);
    assert.deepEqual(listDenied.body, ERRORS.missingScope('property_definition:read'));
  });

  test("another project's definitions cannot be changed or seen", async () => {
    const response = await server.patch(`${BASE}${secondProjectDefinitionId}/`, { hidden: true });
    assert.equal(response.status, 404);
    assert.deepEqual(response.body, ERRORS.notFound);
    const own = await server.get(`/api/projects/${secondProjectId}/property_definitions/${secondProjectDefinitionId}/`);
    assert.equal(own.body.hidden, false);
    assert.ok(!names(await list('?exclude_core_properties=true')).includes('secret_prop'));
  });

  test('paths with and without the trailing slash, and under /api/environments/', async () => {
    assert.deepEqual(names(await list('?exclude_core_properties=true', '/api/projects/1/property_definitions')), OWN_EVENT_PROPERTIES);
    assert.deepEqual(names(await list('?exclude_core_properties=true&exclude_hidden=true', '/api/environments/1/property_definitions/')), OWN_EVENT_PROPERTIES);
    const id = await idOf('custom_thing');
    const viaEnvironments = await server.patch(`/api/environments/1/property_definitions/${id}`, { verified: true });
    assert.equal(viaEnvironments.status, 200);
    assert.equal(viaEnvironments.body.verified, true);
    assert.equal((await patch('custom_thing', { verified: false })).body.verified, false);
  });
});
