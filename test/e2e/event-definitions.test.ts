import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { capture, names, startServerWithTwoProjects, UUID_PATTERN, validationError } from '../support/definitions.js';
import { ERRORS, type TallyServer } from '../support/tally.js';

const DAY_MS = 86_400_000;
const BASE = '/api/projects/1/event_definitions/';

describe('event definitions API', () => {
  let server: TallyServer;
  let secondProjectId: number;
  let readOnlyKey: string;
  let projectOnlyKey: string;

  before(async () => {
    const started = await startServerWithTwoProjects(['event_definition:read', 'project:read']);
    server = started.server;
    secondProjectId = started.secondProject.id;
    readOnlyKey = started.scopedKeys.get('event_definition:read')!;
    projectOnlyKey = started.scopedKeys.get('project:read')!;
    const token = started.firstToken;

    // One request per step, so created_at (ingestion time) follows this order.
    await capture(server, token, [{ event: '$pageview', properties: { $current_url: 'https://tally.dev/' } }]);
    await capture(server, token, [{ event: 'entered_free_trial', properties: { plan: 'pro' } }]);
    await capture(server, token, [{ event: 'watched_movie', properties: { title: 'Up' } }]);
    await capture(server, token, [
      { event: 'installed_app' },
      { event: 'purchase', properties: { price: 9.99 } },
      { event: 'purchase', properties: { price: 5 }, timestamp: new Date(Date.now() - 40 * DAY_MS).toISOString() },
    ]);
    await capture(server, token, [{ event: 'z_event_1' }, { event: 'z_event_10' }, { event: 'z_event_100' }, { event: 'z_event_2' }]);
    await capture(server, token, [{ event: '$identify', properties: { $set: { email: 'ada@tally.dev' } } }]);
    await capture(server, token, [{ event: '$groupidentify', properties: { $group_type: 'company', $group_key: 'acme', $group_set: { seats: 5 } } }]);
    await capture(server, token, [{ event: '$pageview', properties: { $current_url: 'https://tally.dev/pricing' } }]);
    await capture(server, started.secondProject.api_token, [{ event: 'other_project_event' }, { event: '$pageview' }]);
  });
  after(() => server.dispose());

  const ALL_BY_NAME = [
    '$groupidentify',
    '$identify',
    '$pageview',
    'entered_free_trial',
    'installed_app',
    'purchase',
    'watched_movie',
    'z_event_1',
    'z_event_10',
    'z_event_100',
    'z_event_2',
  ];
  const BY_CREATION = [
    '$pageview',
    'entered_free_trial',
    'watched_movie',
    'installed_app',
    'purchase',
    'z_event_1',
    'z_event_10',
    'z_event_100',
    'z_event_2',
    '$identify',
    '$groupidentify',
  ];

  async function list(query = '') {
    const response = await server.get(`${BASE}${query}`);
    assert.equal(response.status, 200, response.text);
    return response.body;
  }

  test('default list: every captured event, last seen day first then name, with the record fields', async () => {
    const body = await list();
    assert.equal(body.count, 11);
    assert.equal(body.next, null);
    assert.equal(body.previous, null);
    assert.deepEqual(names(body), ALL_BY_NAME);

    const purchase = body.results.find((result: { name: string }) => result.name === 'purchase');
    assert.match(purchase.id, UUID_PATTERN);
    assert.match(purchase.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    assert.ok(Math.abs(Date.parse(purchase.created_at) - Date.now()) < 5 * 60_000, 'created_at is ingestion time');
    assert.deepEqual(purchase, {
      id: purchase.id,
      name: 'purchase',
      owner: null,
      description: null,
      tags: [],
      created_at: purchase.created_at,
      updated_at: null,
      last_seen_at: purchase.created_at,
      verified: false,
      verified_at: null,
      verified_by: null,
      hidden: false,
      is_action: false,
      volume_30_day: 1,
      query_usage_30_day: null,
    });
    const pageview = body.results.find((result: { name: string }) => result.name === '$pageview');
    assert.equal(pageview.volume_30_day, 2);
    assert.equal(pageview.last_seen_at, pageview.created_at, 'a sighting within the hour does not rewrite last_seen_at');
  });

  test('limit and offset page with absolute next/previous links', async () => {
    const first = await list('?limit=4');
    assert.equal(first.count, 11);
    assert.deepEqual(names(first), ALL_BY_NAME.slice(0, 4));
    assert.equal(first.previous, null);
    assert.equal(first.next, `${server.url}${BASE}?limit=4&offset=4`);
    const last = await list('?limit=4&offset=8');
    assert.deepEqual(names(last), ALL_BY_NAME.slice(8));
    assert.equal(last.next, null);
    assert.equal(last.previous, `${server.url}${BASE}?limit=4&offset=4`);
    assert.deepEqual(names(await list('?limit=1000000')), ALL_BY_NAME);
    assert.deepEqual(names(await list('?offset=50')), []);
  });

  test('bad limit or offset is a 400 naming the parameter', async () => {
    for (const [query, attr] of [
      ['limit=abc', 'limit'],
      ['limit=-1', 'limit'],
      ['offset=x', 'offset'],
    ] as const) {
      const response = await server.get(`${BASE}?${query}`);
      assert.equal(response.status, 400);
      assert.deepEqual(response.body, validationError(attr, 'A valid integer is required.', 'invalid'));
    }
  });

  test('search: every term is a case-insensitive substring; shorter names first', async () => {
    assert.deepEqual(names(await list('?search=free%20tri')), ['entered_free_trial']);
    assert.deepEqual(names(await list('?search=ed%20mov')), ['watched_movie']);
    assert.deepEqual(names(await list('?search=FREE')), ['entered_free_trial']);
    assert.deepEqual(names(await list('?search=z_event')), ['z_event_1', 'z_event_2', 'z_event_10', 'z_event_100']);
    assert.deepEqual(names(await list('?search=%24')), ['$identify', '$pageview', '$groupidentify']);
    assert.deepEqual(names(await list('?search=%20%20')), ALL_BY_NAME);
    const none = await list('?search=%25');
    assert.deepEqual([none.count, none.results], [0, []], 'wildcards in a term match literally');
    assert.deepEqual(names(await list('?search=free%20movie')), []);
  });

  test('event_type picks custom or PostHog events; anything else is a 400', async () => {
    assert.deepEqual(names(await list('?event_type=event')), ALL_BY_NAME);
    assert.deepEqual(names(await list('?event_type=all')), ALL_BY_NAME);
    assert.deepEqual(names(await list('?event_type=event_custom')), ALL_BY_NAME.slice(3));
    assert.deepEqual(names(await list('?event_type=event_posthog')), ALL_BY_NAME.slice(0, 3));
    assert.deepEqual(names(await list('?event_type=event_custom&search=z_event_1')), ['z_event_1', 'z_event_10', 'z_event_100']);
    const response = await server.get(`${BASE}?event_type=bogus`);
    assert.equal(response.status, 400);
    assert.deepEqual(response.body, validationError('event_type', '"bogus" is not a valid choice.', 'invalid_choice'));
  });

  test('ordering by created_at and last_seen_at, ascending or descending, names breaking ties', async () => {
    assert.deepEqual(names(await list('?ordering=created_at')), BY_CREATION);
    assert.deepEqual(names(await list('?ordering=last_seen_at')), BY_CREATION);
    const newestFirst = [
      '$groupidentify',
      '$identify',
      'z_event_1',
      'z_event_10',
      'z_event_100',
      'z_event_2',
      'installed_app',
      'purchase',
      'watched_movie',
      'entered_free_trial',
      '$pageview',
    ];
    assert.deepEqual(names(await list('?ordering=-created_at')), newestFirst);
    assert.deepEqual(names(await list('?ordering=-last_seen_at')), newestFirst);
  });

  test('ordering by name and by day; repeated or comma-separated; unknown keys ignored', async () => {
    const byNameDescending = [...ALL_BY_NAME].reverse();
    assert.deepEqual(names(await list('?ordering=name')), ALL_BY_NAME);
    assert.deepEqual(names(await list('?ordering=-name')), byNameDescending);
    assert.deepEqual(names(await list('?ordering=-last_seen_at::date,-name')), byNameDescending);
    assert.deepEqual(names(await list('?ordering=created_at::date&ordering=-name')), byNameDescending);
    assert.deepEqual(names(await list('?ordering=volume_30_day,-name')), byNameDescending);
    assert.deepEqual(names(await list('?ordering=bogus')), ALL_BY_NAME);
    assert.deepEqual(names(await list('?search=z_event&ordering=name')), ['z_event_1', 'z_event_10', 'z_event_100', 'z_event_2']);
  });

  test('excluded_properties (JSON list of names) and names (exact, repeated or comma-separated)', async () => {
    const excluded = await list(`?excluded_properties=${encodeURIComponent('["installed_app","purchase"]')}`);
    assert.equal(excluded.count, 9);
    assert.deepEqual(
      names(excluded),
      ALL_BY_NAME.filter((name) => name !== 'installed_app' && name !== 'purchase'),
    );
    assert.deepEqual(names(await list('?names=purchase,installed_app&names=unknown')), ['installed_app', 'purchase']);
    assert.deepEqual(names(await list('?names=$pageview')), ['$pageview']);
    for (const bad of ['[oops', '{"a":1}', '"purchase"']) {
      const response = await server.get(`${BASE}?excluded_properties=${encodeURIComponent(bad)}`);
      assert.equal(response.status, 400, bad);
      assert.deepEqual(response.body, validationError('excluded_properties', 'Expected a JSON-encoded list of names.', 'invalid'));
    }
  });

  test("retrieve by id; unknown, non-UUID or another project's id is 404", async () => {
    const purchase = (await list('?names=purchase')).results[0];
    const response = await server.get(`${BASE}${purchase.id}`);
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, purchase);

    const other = (await server.get(`/api/projects/${secondProjectId}/event_definitions/?names=other_project_event`)).body.results[0];
    for (const id of ['0190a1b2-0000-7000-8000-000000000000', 'not-a-uuid', '123', other.id]) {
      const missing = await server.get(`${BASE}${id}/`);
      assert.equal(missing.status, 404, id);
      assert.deepEqual(missing.body, ERRORS.notFound);
    }
  });

  test('projects see only their own definitions', async () => {
    const second = await server.get(`/api/projects/${secondProjectId}/event_definitions/`);
    assert.equal(second.status, 200);
    assert.deepEqual(names(second.body), ['$pageview', 'other_project_event']);
    assert.equal(second.body.results[0].volume_30_day, 1);
    assert.ok(!names(await list()).includes('other_project_event'));
  });

  test('PATCH description, tags and owner', async () => {
    const watched = (await list('?names=watched_movie')).results[0];
    const response = await server.patch(`${BASE}${watched.id}/`, {
      description: 'A movie was watched',
      tags: ['Growth', ' growth ', 'core'],
      owner: 1,
      name: 'renamed',
      created_at: '2000-01-01T00:00:00Z',
    });
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.name, 'watched_movie');
    assert.equal(response.body.created_at, watched.created_at);
    assert.equal(response.body.description, 'A movie was watched');
    assert.deepEqual(response.body.tags, ['growth', 'core']);
    assert.equal(response.body.owner.id, 1);
    assert.match(response.body.owner.uuid, UUID_PATTERN);
    assert.deepEqual(response.body.owner, {
      id: 1,
      uuid: response.body.owner.uuid,
      first_name: response.body.owner.first_name,
      last_name: '',
      email: 'admin@localhost',
    });
    assert.ok(Date.parse(response.body.updated_at) > Date.parse(watched.created_at));
    assert.deepEqual((await server.get(`${BASE}${watched.id}`)).body, response.body);

    const cleared = await server.patch(`${BASE}${watched.id}/`, { owner: null, description: null });
    assert.equal(cleared.body.owner, null);
    assert.equal(cleared.body.description, null);
    assert.deepEqual(cleared.body.tags, ['growth', 'core']);
  });

  test('PATCH verified stamps verified_at; hidden un-verifies; both together is a 400', async () => {
    const movie = (await list('?names=entered_free_trial')).results[0];
    const verified = await server.patch(`${BASE}${movie.id}/`, { verified: true });
    assert.equal(verified.status, 200);
    assert.equal(verified.body.verified, true);
    assert.equal(verified.body.hidden, false);
    assert.ok(Math.abs(Date.parse(verified.body.verified_at) - Date.now()) < 60_000);
    assert.equal(verified.body.verified_by.email, 'admin@localhost');

    const again = await server.patch(`${BASE}${movie.id}/`, { verified: true });
    assert.equal(again.body.verified_at, verified.body.verified_at, 're-verifying keeps the first stamp');

    const both = await server.patch(`${BASE}${movie.id}/`, { verified: true, hidden: true, description: 'x' });
    assert.equal(both.status, 400);
    assert.deepEqual(both.body, validationError(null, 'An event cannot be both hidden and verified'));
    assert.deepEqual((await server.get(`${BASE}${movie.id}`)).body, again.body, 'nothing changed');

    const hidden = await server.patch(`${BASE}${movie.id}/`, { hidden: true });
    assert.equal(hidden.body.hidden, true);
    assert.equal(hidden.body.verified, false);
    assert.equal(hidden.body.verified_at, null);
    assert.equal(hidden.body.verified_by, null);

    const reverified = await server.patch(`${BASE}${movie.id}/`, { verified: true });
    assert.equal(reverified.body.hidden, false);
    assert.equal(reverified.body.verified, true);
    const unverified = await server.patch(`${BASE}${movie.id}/`, { verified: false });
    assert.equal(unverified.body.verified, false);
    assert.equal(unverified.body.verified_at, null);
  });

  test('PATCH with bad values is a 400 naming the field and changes nothing', async () => {
    const app = (await list('?names=installed_app')).results[0];
    const cases: [object, object][] = [
      [{ tags: 'growth' }, validationError('tags', 'Expected a list of items but got type "str".', 'not_a_list')],
      [{ tags: [1] }, validationError('tags', 'Not a valid string.', 'invalid')],
      [{ description: 5 }, validationError('description', 'Not a valid string.', 'invalid')],
      [{ verified: 'maybe' }, validationError('verified', 'Must be a valid boolean.', 'invalid')],
      [{ hidden: 2 }, validationError('hidden', 'Must be a valid boolean.', 'invalid')],
      [{ owner: 999 }, validationError('owner', 'Invalid pk "999" - object does not exist.', 'does_not_exist')],
      [{ owner: 'ada' }, validationError('owner', 'Incorrect type. Expected pk value, received str.', 'incorrect_type')],
    ];
    for (const [patch, error] of cases) {
      const response = await server.patch(`${BASE}${app.id}/`, { description: 'changed', ...patch });
      assert.equal(response.status, 400, JSON.stringify(patch));
      assert.deepEqual(response.body, error);
    }
    assert.deepEqual((await server.get(`${BASE}${app.id}`)).body, app);
    const missing = await server.patch(`${BASE}not-a-uuid/`, { description: 'x' });
    assert.equal(missing.status, 404);
  });

  test('DELETE answers 204; the definition is gone until the event is captured again', async () => {
    const target = (await list('?names=z_event_2')).results[0];
    const response = await server.delete(`${BASE}${target.id}/`);
    assert.equal(response.status, 204);
    assert.equal(response.text, '');
    assert.deepEqual((await server.get(`${BASE}${target.id}/`)).body, ERRORS.notFound);
    assert.equal((await server.delete(`${BASE}${target.id}/`)).status, 404);
    assert.deepEqual(names(await list('?search=z_event_2')), []);

    await capture(server, 'phc_definitions_project_one', [{ event: 'z_event_2' }]);
    const recreated = (await list('?names=z_event_2')).results;
    assert.equal(recreated.length, 1);
    assert.notEqual(recreated[0].id, target.id);
  });

  test('scopes: read needs event_definition:read, changes need event_definition:write', async () => {
    const someId = (await list('?names=purchase')).results[0].id;
    const noScope = await server.get(BASE, { key: projectOnlyKey });
    assert.equal(noScope.status, 403);
    assert.deepEqual(noScope.body, ERRORS.missingScope('event_definition:read'));
    assert.equal((await server.get(`${BASE}${someId}/`, { key: projectOnlyKey })).status, 403);

    assert.equal((await server.get(BASE, { key: readOnlyKey })).status, 200);
    assert.equal((await server.get(`${BASE}${someId}/`, { key: readOnlyKey })).status, 200);
    const patch = await server.patch(`${BASE}${someId}/`, { description: 'x' }, { key: readOnlyKey });
    assert.equal(patch.status, 403);
    assert.deepEqual(patch.body, ERRORS.missingScope('event_definition:write'));
    const deletion = await server.delete(`${BASE}${someId}/`, { key: readOnlyKey });
    assert.deepEqual(deletion.body, ERRORS.missingScope('event_definition:write'));
    assert.equal((await server.get(BASE, { key: null })).status, 401);
    assert.equal((await list('?names=purchase')).results[0].description, null);
  });
});
