import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { capture, names, startServerWithTwoProjects, UUID_PATTERN, validationError } from '../support/definitions.js';
import { ERRORS, type TallyServer } from '../support/tally.js';

const BASE = '/api/projects/1/property_definitions/';

/** Event properties of project 1 as listed (PostHog hides distinct_id); $ip is added by capture. */
const EVENT_PROPERTIES = ['$feature/beta', '$ip', '$lib', 'currency', 'is_gift', 'meta', 'paid_at', 'plan', 'price', 'referrer_count', 'utm_source'];

describe('property definitions API', () => {
  let server: TallyServer;
  let token: string;
  let secondProjectId: number;
  let readOnlyKey: string;
  let projectOnlyKey: string;

  before(async () => {
    const started = await startServerWithTwoProjects(['property_definition:read', 'project:read']);
    server = started.server;
    token = started.firstToken;
    secondProjectId = started.secondProject.id;
    readOnlyKey = started.scopedKeys.get('property_definition:read')!;
    projectOnlyKey = started.scopedKeys.get('project:read')!;

    await capture(server, token, [
      {
        event: 'purchase',
        properties: {
          price: 9.99,
          currency: 'EUR',
          is_gift: 'false',
          paid_at: '2024-05-01T10:00:00Z',
          meta: { source: 'app' },
          distinct_id: 'user-1',
          '$feature/beta': true,
          utm_source: 'newsletter',
          $set: { email: 'ada@tally.dev', age: 30 },
          $set_once: { first_seen_at: '2024-01-01' },
        },
      },
      { event: 'signup', properties: { plan: 'pro', referrer_count: 3 } },
    ]);
    await capture(server, token, [
      { event: '$groupidentify', properties: { $group_type: 'company', $group_key: 'acme', $group_set: { seats: 5, company_name: 'Acme' } } },
    ]);
    await capture(server, token, [{ event: '$groupidentify', properties: { $group_type: 'team', $group_key: 'core', $group_set: { size: 3 } } }]);
    await capture(server, started.secondProject.api_token, [{ event: 'other', properties: { secret_prop: 1 } }]);
  });
  after(() => server.dispose());

  async function list(query = '') {
    const response = await server.get(`${BASE}${query}`);
    assert.equal(response.status, 200, response.text);
    return response.body;
  }

  function types(body: { results: { name: string; property_type: string | null }[] }) {
    return Object.fromEntries(body.results.map((result) => [result.name, result.property_type]));
  }

  test('default list: event properties by name, with detected types and the record fields', async () => {
    const body = await list();
    assert.equal(body.count, EVENT_PROPERTIES.length);
    assert.deepEqual(names(body), EVENT_PROPERTIES);
    assert.deepEqual(types(body), {
      '$feature/beta': 'String',
      $ip: 'String',
      $lib: 'String',
      currency: 'String',
      is_gift: 'Boolean',
      meta: null,
      paid_at: 'DateTime',
      plan: 'String',
      price: 'Numeric',
      referrer_count: 'Numeric',
      utm_source: 'String',
    });
    const price = body.results.find((result: { name: string }) => result.name === 'price');
    assert.match(price.id, UUID_PATTERN);
    assert.deepEqual(price, {
      id: price.id,
      name: 'price',
      description: null,
      tags: [],
      is_numerical: true,
      property_type: 'Numeric',
      updated_at: null,
      is_seen_on_filtered_events: null,
      hidden: false,
      verified: false,
    });
  });

  test('person and group properties; session properties are never recorded', async () => {
    // Capture copies utm_* onto the person ($set) and its initial value ($set_once), as PostHog does.
    assert.deepEqual(types(await list('?type=person')), {
      $initial_utm_source: 'String',
      age: 'Numeric',
      email: 'String',
      first_seen_at: 'DateTime',
      utm_source: 'String',
    });
    assert.deepEqual(types(await list('?type=group&group_type_index=0')), { company_name: 'String', seats: 'Numeric' });
    assert.deepEqual(types(await list('?type=group&group_type_index=1')), { size: 'Numeric' });
    assert.deepEqual(names(await list('?type=group&group_type_index=2')), []);
    assert.deepEqual(names(await list('?type=session')), []);
    assert.deepEqual(types(await list('?type=event&search=seats')), {}, '$groupidentify records no event properties');
  });

  test('bad type or group_type_index is a 400 naming the parameter', async () => {
    const cases: [string, object][] = [
      ['type=cohort', validationError('type', '"cohort" is not a valid choice.', 'invalid_choice')],
      ['type=group', validationError('group_type_index', '`group_type_index` must be set for `group` type')],
      ['type=person&group_type_index=0', validationError('group_type_index', '`group_type_index` can only set for `group` type')],
      ['type=group&group_type_index=5', validationError('group_type_index', 'Invalid value for `group_type_index`')],
      ['type=group&group_type_index=-1', validationError('group_type_index', 'Invalid value for `group_type_index`')],
      ['type=group&group_type_index=one', validationError('group_type_index', 'A valid integer is required.', 'invalid')],
    ];
    for (const [query, error] of cases) {
      const response = await server.get(`${BASE}?${query}`);
      assert.equal(response.status, 400, query);
      assert.deepEqual(response.body, error);
    }
  });

  test('search: every term is a case-insensitive substring', async () => {
    assert.deepEqual(names(await list('?search=PRI')), ['price']);
    assert.deepEqual(names(await list('?search=r%20c')), ['currency', 'price', 'referrer_count', 'utm_source']);
    assert.deepEqual(names(await list('?search=_')), ['is_gift', 'paid_at', 'referrer_count', 'utm_source']);
    assert.deepEqual(names(await list('?type=person&search=mail')), ['email']);
    assert.deepEqual(names(await list('?search=%20')), EVENT_PROPERTIES);
  });

  test('event_names marks properties seen on those events and lists them first; filter_by_event_names keeps only them', async () => {
    const seenOnSignup = ['$ip', '$lib', 'plan', 'referrer_count'];
    const marked = await list(`?event_names=${encodeURIComponent('["signup"]')}`);
    assert.equal(marked.count, EVENT_PROPERTIES.length);
    assert.deepEqual(names(marked), [...seenOnSignup, ...EVENT_PROPERTIES.filter((name) => !seenOnSignup.includes(name))]);
    assert.deepEqual(
      marked.results.map((result: { is_seen_on_filtered_events: boolean }) => result.is_seen_on_filtered_events),
      [true, true, true, true, false, false, false, false, false, false, false],
    );

    const filtered = await list(`?event_names=${encodeURIComponent('["signup"]')}&filter_by_event_names=true`);
    assert.equal(filtered.count, 4);
    assert.deepEqual(names(filtered), seenOnSignup);

    // Feature flag properties are never linked to events, as in PostHog.
    const purchase = await list(`?event_names=${encodeURIComponent('["purchase","unknown"]')}&filter_by_event_names=1`);
    assert.deepEqual(names(purchase), ['$ip', '$lib', 'currency', 'is_gift', 'meta', 'paid_at', 'price', 'utm_source']);
    assert.deepEqual(names(await list(`?event_names=${encodeURIComponent('["unknown"]')}&filter_by_event_names=true`)), []);
    assert.deepEqual(names(await list(`?event_names=${encodeURIComponent('["signup"]')}&filter_by_event_names=false`)), names(marked));
  });

  test('bad event_names, excluded_properties or booleans are 400s naming the parameter', async () => {
    const cases: [string, object][] = [
      [`type=person&event_names=${encodeURIComponent('["signup"]')}`, validationError('event_names', '`event_names` can only be set for `event` type')],
      ['event_names=signup', validationError('event_names', 'Expected a JSON-encoded list of names.', 'invalid')],
      ['excluded_properties=%7B%7D', validationError('excluded_properties', 'Expected a JSON-encoded list of names.', 'invalid')],
      ['is_numerical=maybe', validationError('is_numerical', 'Must be a valid boolean.', 'invalid')],
      ['filter_by_event_names=sure', validationError('filter_by_event_names', 'Must be a valid boolean.', 'invalid')],
      ['limit=many', validationError('limit', 'A valid integer is required.', 'invalid')],
    ];
    for (const [query, error] of cases) {
      const response = await server.get(`${BASE}?${query}`);
      assert.equal(response.status, 400, query);
      assert.deepEqual(response.body, error);
    }
  });

  test('is_numerical, is_feature_flag, excluded_properties and properties', async () => {
    assert.deepEqual(names(await list('?is_numerical=true')), ['price', 'referrer_count']);
    assert.deepEqual(names(await list('?is_numerical=false')), EVENT_PROPERTIES);
    assert.deepEqual(names(await list('?type=person&is_numerical=true')), ['age']);
    assert.deepEqual(names(await list('?is_feature_flag=true')), ['$feature/beta']);
    assert.deepEqual(names(await list('?is_feature_flag=false')), EVENT_PROPERTIES.slice(1));
    assert.deepEqual(
      names(await list(`?excluded_properties=${encodeURIComponent('["price","$lib","nope"]')}`)),
      EVENT_PROPERTIES.filter((name) => name !== 'price' && name !== '$lib'),
    );
    assert.deepEqual(names(await list('?properties=price,plan,distinct_id')), ['plan', 'price']);
  });

  test('limit and offset page with absolute links', async () => {
    const first = await list('?limit=5');
    assert.deepEqual(names(first), EVENT_PROPERTIES.slice(0, 5));
    assert.equal(first.next, `${server.url}${BASE}?limit=5&offset=5`);
    assert.equal(first.previous, null);
    const last = await list('?limit=5&offset=10');
    assert.deepEqual(names(last), EVENT_PROPERTIES.slice(10));
    assert.equal(last.next, null);
    assert.equal(last.previous, `${server.url}${BASE}?limit=5&offset=5`);
  });

  test('the first seen type sticks; an untyped property takes the first real type', async () => {
    await capture(server, token, [{ event: 'purchase', properties: { price: 'free', meta: 'from the web', is_gift: 3 } }]);
    assert.deepEqual(types(await list('?properties=price,meta,is_gift')), { is_gift: 'Boolean', meta: 'String', price: 'Numeric' });
  });

  test("retrieve by id; unknown, non-UUID or another project's id is 404", async () => {
    const plan = (await list('?properties=plan')).results[0];
    const response = await server.get(`${BASE}${plan.id}/`);
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, plan);

    const other = (await server.get(`/api/projects/${secondProjectId}/property_definitions/?properties=secret_prop`)).body.results[0];
    for (const id of ['0190a1b2-0000-7000-8000-000000000000', 'plan', other.id]) {
      const missing = await server.get(`${BASE}${id}`);
      assert.equal(missing.status, 404, id);
      assert.deepEqual(missing.body, ERRORS.notFound);
    }
  });

  test('projects see only their own definitions', async () => {
    const second = await server.get(`/api/projects/${secondProjectId}/property_definitions/`);
    assert.equal(second.status, 200);
    assert.deepEqual(names(second.body), ['$ip', '$lib', 'secret_prop']);
  });

  test('PATCH property_type (is_numerical follows), description and tags; bad values change nothing', async () => {
    const price = (await list('?properties=price')).results[0];
    const retyped = await server.patch(`${BASE}${price.id}/`, { property_type: 'String', description: 'Price in EUR', tags: ['Money'], name: 'x' });
    assert.equal(retyped.status, 200, retyped.text);
    assert.equal(retyped.body.name, 'price');
    assert.equal(retyped.body.property_type, 'String');
    assert.equal(retyped.body.is_numerical, false);
    assert.equal(retyped.body.description, 'Price in EUR');
    assert.deepEqual(retyped.body.tags, ['money']);
    assert.ok(retyped.body.updated_at);
    assert.deepEqual(names(await list('?is_numerical=true')), ['referrer_count']);

    const back = await server.patch(`${BASE}${price.id}/`, { property_type: 'Numeric' });
    assert.equal(back.body.is_numerical, true);
    assert.deepEqual(back.body.tags, ['money']);

    for (const [patch, error] of [
      [{ property_type: 'Money' }, validationError('property_type', '"Money" is not a valid choice.', 'invalid_choice')],
      [{ tags: 'money' }, validationError('tags', 'Expected a list of items but got type "str".', 'not_a_list')],
      [{ description: ['x'] }, validationError('description', 'Not a valid string.', 'invalid')],
    ] as const) {
      const response = await server.patch(`${BASE}${price.id}/`, Object.assign({ property_type: 'Boolean' }, patch));
      assert.equal(response.status, 400, JSON.stringify(patch));
      assert.deepEqual(response.body, error);
    }
    assert.deepEqual((await server.get(`${BASE}${price.id}/`)).body, back.body);

    const deletion = await server.delete(`${BASE}${price.id}/`);
    assert.equal(deletion.status, 405);
    assert.deepEqual(deletion.body, { type: 'invalid_request', code: 'method_not_allowed', detail: 'Method "DELETE" not allowed.', attr: null });
  });

  test('scopes: read needs property_definition:read, PATCH needs property_definition:write', async () => {
    const plan = (await list('?properties=plan')).results[0];
    const noScope = await server.get(BASE, { key: projectOnlyKey });
    assert.equal(noScope.status, 403);
    assert.deepEqual(noScope.body, ERRORS.missingScope('property_definition:read'));
    assert.equal((await server.get(`${BASE}${plan.id}/`, { key: projectOnlyKey })).status, 403);
    assert.equal((await server.get(BASE, { key: readOnlyKey })).status, 200);
    assert.equal((await server.get(`${BASE}${plan.id}/`, { key: readOnlyKey })).status, 200);
    const patch = await server.patch(`${BASE}${plan.id}/`, { description: 'x' }, { key: readOnlyKey });
    assert.equal(patch.status, 403);
    assert.deepEqual(patch.body, ERRORS.missingScope('property_definition:write'));
    assert.equal((await server.get(`${BASE}${plan.id}/`)).body.description, null);
  });
});
