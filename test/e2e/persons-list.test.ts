import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sendBatch } from '../support/capture.js';
import { PERSONS, jsonParam, personOf, startWithKeys, validationError } from '../support/persons.js';
import { ERRORS, type TallyServer } from '../support/tally.js';

const ANON = '0190a3f2-aaaa-7bbb-8ccc-000000000001';

/** GET /persons over persons created by real captures: order, paging, every filter and its errors. */
describe('persons API: list', () => {
  let server: TallyServer;
  let keys: Record<string, string>;
  const ids: Record<string, number> = {};
  const list = async (query = '') => {
    const response = await server.get(`${PERSONS}/${query}`);
    assert.equal(response.status, 200, response.text);
    return response.body;
  };
  const names = (body: any) => body.results.map((person: any) => person.distinct_ids[0]);

  before(async () => {
    ({ server, keys } = await startWithKeys({ insights: 'insight:read', personRead: 'person:read' }));
    const pages = Array.from({ length: 12 }, (_, index) => ({
      event: 'seen',
      distinct_id: `page-${String(index + 1).padStart(2, '0')}`,
      timestamp: `2023-06-${String(index + 1).padStart(2, '0')}T00:00:00Z`,
    }));
    await sendBatch(server, pages);
    await sendBatch(server, [
      {
        event: 'seen',
        distinct_id: 'alice',
        timestamp: '2024-01-01T00:00:00Z',
        properties: { $set: { email: 'alice@example.com', plan: 'free', age: 30, signup: '2024-01-01', tags: ['a'] } },
      },
      {
        event: 'seen',
        distinct_id: 'bob',
        timestamp: '2024-01-02T00:00:00Z',
        properties: { $set: { email: 'BOB@Example.com', plan: 'pro', age: 25, signup: '2024-03-15T10:00:00Z' } },
      },
      { event: 'seen', distinct_id: ANON, timestamp: '2024-01-03T00:00:00Z', properties: { $set: { plan: 'pro' } } },
      { event: 'seen', distinct_id: 'carol', timestamp: '2024-01-04T00:00:00Z', properties: { $set: { name: 'Carol', age: '41', nickname: null } } },
      { event: 'seen', distinct_id: 'anon-dave', timestamp: '2024-01-05T00:00:00Z' },
      {
        event: '$identify',
        distinct_id: 'dave',
        timestamp: '2024-01-05T01:00:00Z',
        properties: { $anon_distinct_id: 'anon-dave', $set: { email: 'dave@corp.io', plan: 'enterprise' } },
      },
      { event: 'seen', distinct_id: 'twin-a', timestamp: '2024-01-06T00:00:00Z' },
      { event: 'seen', distinct_id: 'twin-b', timestamp: '2024-01-06T00:00:00Z' },
    ]);
    for (const distinctId of ['alice', 'bob', ANON, 'carol', 'dave', 'twin-a', 'twin-b', 'page-01', 'page-12']) {
      ids[distinctId] = (await personOf(server, distinctId)).id;
    }
  });
  after(() => server.dispose());

  test('newest first (created_at, then id), with the Person shape and a total count', async () => {
    const body = await list();
    assert.equal(body.count, 19);
    assert.equal(body.next, null);
    assert.equal(body.previous, null);
    assert.deepEqual(names(body).slice(0, 7), ['twin-b', 'twin-a', 'anon-dave', 'carol', ANON, 'bob', 'alice']);
    assert.equal(names(body)[18], 'page-01');
    const alice = body.results.find((person: any) => person.id === ids.alice);
    assert.deepEqual(Object.keys(alice), ['id', 'name', 'distinct_ids', 'properties', 'created_at', 'uuid', 'is_identified']);
    assert.equal(alice.name, 'alice@example.com');
    assert.equal(alice.created_at, '2024-01-01T00:00:00.000000Z');
    assert.deepEqual(alice.properties.tags, ['a']);
    assert.equal(alice.properties.age, 30);
    assert.equal(alice.is_identified, false);
    assert.match(alice.uuid, /^[0-9a-f-]{36}$/);
  });

  test('the name rule: display properties, then the first non-anonymous distinct id, then the id', async () => {
    const body = await list();
    const byId = new Map(body.results.map((person: any) => [person.id, person]));
    assert.equal((byId.get(ids.carol) as any).name, 'Carol');
    assert.equal((byId.get(ids[ANON]!) as any).name, String(ids[ANON]));
    assert.equal((byId.get(ids['twin-a']!) as any).name, 'twin-a');
    assert.equal((byId.get(ids.dave) as any).name, 'dave@corp.io');
    const patched = await server.patch('/api/projects/1/', { person_display_name_properties: ['plan'] });
    assert.equal(patched.status, 200, patched.text);
    const renamed = await server.get(`${PERSONS}/${ids.bob}/`);
    assert.equal(renamed.body.name, 'pro');
    const fallback = await server.get(`${PERSONS}/${ids.carol}/`);
    assert.equal(fallback.body.name, 'carol');
    await server.patch('/api/projects/1/', { person_display_name_properties: null });
  });

  test('non-anonymous distinct ids come first, in the list and in retrieve', async () => {
    const dave = await personOf(server, 'dave');
    assert.deepEqual(dave.distinct_ids, ['anon-dave', 'dave']);
    await sendBatch(server, [
      { event: 'seen', distinct_id: '0190a3f2-aaaa-7bbb-8ccc-000000000002', timestamp: '2022-01-01T00:00:00Z' },
      { event: '$identify', distinct_id: 'erin', timestamp: '2022-01-01T00:01:00Z', properties: { $anon_distinct_id: '0190a3f2-aaaa-7bbb-8ccc-000000000002' } },
    ]);
    const erin = await personOf(server, 'erin');
    assert.deepEqual(erin.distinct_ids, ['erin', '0190a3f2-aaaa-7bbb-8ccc-000000000002']);
    const retrieved = await server.get(`${PERSONS}/${erin.id}/`);
    assert.deepEqual(retrieved.body.distinct_ids, ['erin', '0190a3f2-aaaa-7bbb-8ccc-000000000002']);
    assert.equal(retrieved.body.name, 'erin');
    assert.equal(retrieved.body.is_identified, true);
  });

  test('limit/offset pages with absolute next/previous links', async () => {
    const first = await list('?limit=5');
    assert.equal(first.results.length, 5);
    assert.equal(first.count, 20);
    assert.equal(first.previous, null);
    assert.equal(first.next, `${server.url}${PERSONS}/?limit=5&offset=5`);
    const second = await list('?limit=5&offset=5');
    assert.deepEqual(names(second), ['bob', 'alice', 'page-12', 'page-11', 'page-10']);
    assert.equal(second.previous, `${server.url}${PERSONS}/?limit=5&offset=0`);
    assert.equal(second.next, `${server.url}${PERSONS}/?limit=5&offset=10`);
    const last = await list('?limit=5&offset=15');
    assert.equal(last.results.length, 5);
    assert.equal(last.next, null);
    const beyond = await list('?limit=5&offset=100');
    assert.deepEqual(beyond.results, []);
    assert.equal(beyond.count, 20);
  });

  test('every page is its slice of the whole list, the same whether the list is filtered or not', async () => {
    const whole = await list();
    const everyone = `&properties=${jsonParam([{ key: 'never-set', operator: 'is_not_set', type: 'person' }])}`;
    const filtered = await list(`?limit=100${everyone}`);
    assert.deepEqual(filtered.results, whole.results);
    const ids = whole.results.map((person: any) => person.id);
    for (const limit of [1, 3, 7]) {
      for (const filter of ['', everyone]) {
        for (let offset = 0; offset <= whole.count; offset++) {
          const page = await list(`?limit=${limit}&offset=${offset}${filter}`);
          assert.equal(page.count, whole.count);
          assert.deepEqual(
            page.results.map((person: any) => person.id),
            ids.slice(offset, offset + limit),
            `limit ${limit} offset ${offset}${filter}`,
          );
        }
      }
    }
  });

  test('limit defaults to 100, clamps at 1000, and rejects non-integers', async () => {
    const clamped = await list('?limit=5000');
    assert.equal(clamped.results.length, 20);
    assert.equal(clamped.next, null);
    const zero = await list('?limit=0');
    assert.equal(zero.results.length, 20);
    for (const query of ['?limit=abc', '?limit=-1', '?offset=x']) {
      const response = await server.get(`${PERSONS}/${query}`);
      assert.equal(response.status, 400);
      assert.deepEqual(response.body, validationError('A valid integer is required.', query.includes('offset') ? 'offset' : 'limit', 'invalid'));
    }
  });

  test("distinct_id: exact match on any of the person's ids", async () => {
    assert.deepEqual(
      (await list('?distinct_id=anon-dave')).results.map((p: any) => p.id),
      [ids.dave],
    );
    assert.deepEqual(
      (await list('?distinct_id=dave')).results.map((p: any) => p.id),
      [ids.dave],
    );
    const none = await list('?distinct_id=dav');
    assert.deepEqual(none, { count: 0, next: null, previous: null, results: [] });
  });

  test('email: exact match on the email property', async () => {
    assert.deepEqual(
      (await list('?email=alice@example.com')).results.map((p: any) => p.id),
      [ids.alice],
    );
    assert.equal((await list('?email=ALICE@example.com')).count, 0);
    assert.equal((await list('?email=alice')).count, 0);
  });

  test('search: email substring (case-insensitive), an exact distinct id, or the UUID', async () => {
    assert.deepEqual(
      (await list('?search=EXAMPLE.com')).results.map((p: any) => p.id),
      [ids.bob, ids.alice],
    );
    assert.deepEqual(
      (await list('?search=carol')).results.map((p: any) => p.id),
      [ids.carol],
    );
    assert.equal((await list('?search=caro')).count, 0);
    const bob = await server.get(`${PERSONS}/${ids.bob}/`);
    assert.deepEqual(
      (await list(`?search=${bob.body.uuid.toUpperCase()}`)).results.map((p: any) => p.id),
      [ids.bob],
    );
    assert.equal((await list('?search=%20%20')).count, 20);
  });

  test('filters combine with AND', async () => {
    const body = await list(`?search=example.com&properties=${jsonParam([{ key: 'plan', value: 'pro', type: 'person' }])}`);
    assert.deepEqual(
      body.results.map((p: any) => p.id),
      [ids.bob],
    );
  });

  const operatorCases: [string, object, string[]][] = [
    ['exact (default operator)', { key: 'plan', value: 'pro', type: 'person' }, [ANON, 'bob']],
    ['exact with a list means any of', { key: 'plan', value: ['free', 'enterprise'], operator: 'exact', type: 'person' }, ['dave', 'alice']],
    ['is_not includes persons without the property', { key: 'plan', value: 'pro', operator: 'is_not', type: 'person' }, ['dave', 'carol', 'alice']],
    ['icontains', { key: 'email', value: 'EXAMPLE', operator: 'icontains', type: 'person' }, ['bob', 'alice']],
    ['not_icontains', { key: 'email', value: 'example', operator: 'not_icontains', type: 'person' }, ['dave', 'carol', ANON]],
    ['regex', { key: 'email', value: '^[ab]', operator: 'regex', type: 'person' }, ['alice']],
    ['not_regex', { key: 'plan', value: '^p', operator: 'not_regex', type: 'person' }, ['dave', 'carol', 'alice']],
    ['gt on numbers and numeric text', { key: 'age', value: 29, operator: 'gt', type: 'person' }, ['carol', 'alice']],
    ['gte', { key: 'age', value: '30', operator: 'gte', type: 'person' }, ['carol', 'alice']],
    ['lt', { key: 'age', value: 30, operator: 'lt', type: 'person' }, ['bob']],
    ['lte', { key: 'age', value: 30, operator: 'lte', type: 'person' }, ['bob', 'alice']],
    ['is_set (even when null)', { key: 'nickname', operator: 'is_set', type: 'person' }, ['carol']],
    ['is_not_set', { key: 'email', operator: 'is_not_set', type: 'person' }, ['carol', ANON]],
    ['is_date_before', { key: 'signup', value: '2024-02-01', operator: 'is_date_before', type: 'person' }, ['alice']],
    ['is_date_after', { key: 'signup', value: '2024-01-01', operator: 'is_date_after', type: 'person' }, ['bob']],
    ['is_date_exact', { key: 'signup', value: '2024-03-15', operator: 'is_date_exact', type: 'person' }, ['bob']],
  ];
  for (const [label, filter, expected] of operatorCases) {
    test(`properties: ${label}`, async () => {
      const body = await list(`?properties=${jsonParam([filter])}&limit=1000`);
      const found = body.results.map((p: any) => p.distinct_ids.find((id: string) => !id.startsWith('anon-')) ?? p.distinct_ids[0]);
      assert.deepEqual(
        found.filter((id: string) => !id.startsWith('page-') && !id.startsWith('twin-') && id !== 'erin'),
        expected,
      );
    });
  }

  test('properties: AND/OR groups, nested', async () => {
    const group = {
      type: 'OR',
      values: [
        {
          type: 'AND',
          values: [
            { key: 'plan', value: 'pro', type: 'person' },
            { key: 'age', value: 25, type: 'person' },
          ],
        },
        { type: 'AND', values: [{ key: 'name', value: 'Carol', type: 'person' }] },
      ],
    };
    assert.deepEqual(
      (await list(`?properties=${jsonParam(group)}`)).results.map((p: any) => p.id),
      [ids.carol, ids.bob],
    );
    const and = {
      type: 'AND',
      values: [
        { key: 'plan', value: 'pro', type: 'person' },
        { key: 'age', value: 25, operator: 'is_not', type: 'person' },
      ],
    };
    assert.deepEqual(
      (await list(`?properties=${jsonParam(and)}`)).results.map((p: any) => p.id),
      [ids[ANON]],
    );
  });

  test('properties: event filters do not apply to persons; an empty list filters nothing', async () => {
    assert.equal((await list(`?properties=${jsonParam([{ key: 'plan', value: 'nope', type: 'event' }])}`)).count, 20);
    assert.equal((await list(`?properties=${jsonParam([])}`)).count, 20);
  });

  test('properties: unparsable JSON and unknown cohorts are 400', async () => {
    const unparsable = await server.get(`${PERSONS}/?properties=%5Bnot-json`);
    assert.equal(unparsable.status, 400);
    assert.deepEqual(unparsable.body, validationError('Properties are unparsable!'));
    const cohort = await server.get(`${PERSONS}/?properties=${jsonParam([{ key: 'id', value: 999, type: 'cohort' }])}`);
    assert.equal(cohort.status, 400);
    assert.deepEqual(cohort.body, validationError('Cohort 999 does not exist.', 'properties'));
  });

  test("another project's persons never show", async () => {
    const other = await server.get('/api/projects/1/persons/?distinct_id=alice');
    assert.equal(other.body.count, 1);
    const missing = await server.get('/api/projects/999/persons/');
    assert.equal(missing.status, 404);
    assert.deepEqual(missing.body, ERRORS.notFound);
  });

  test('scopes: person:read lists; other scopes are refused', async () => {
    assert.equal((await server.get(`${PERSONS}/`, { key: keys.personRead })).status, 200);
    const refused = await server.get(`${PERSONS}/`, { key: keys.insights });
    assert.equal(refused.status, 403);
    assert.deepEqual(refused.body, ERRORS.missingScope('person:read'));
    const anonymous = await server.get(`${PERSONS}/`, { key: null });
    assert.deepEqual(anonymous.body, ERRORS.notAuthenticated);
  });

  test("filters see only a person's current properties; a filtered page past the end still counts", async () => {
    await sendBatch(server, [{ event: 'seen', distinct_id: 'page-12', timestamp: '2024-02-01T00:00:00Z', properties: { $set: { email: 'old@change.io' } } }]);
    assert.deepEqual(
      (await list('?search=change.io')).results.map((p: any) => p.id),
      [ids['page-12']],
    );
    await sendBatch(server, [{ event: 'seen', distinct_id: 'page-12', timestamp: '2024-02-02T00:00:00Z', properties: { $set: { email: 'new@change.io' } } }]);
    assert.equal((await list('?search=old@change')).count, 0);
    assert.equal((await list('?email=old@change.io')).count, 0);
    assert.deepEqual(
      (await list('?email=new@change.io')).results.map((p: any) => p.id),
      [ids['page-12']],
    );
    const beyond = await list(`?limit=1&offset=5&properties=${jsonParam([{ key: 'plan', value: 'pro', type: 'person' }])}`);
    assert.deepEqual(beyond.results, []);
    assert.equal(beyond.count, 2);
    const page = await list(`?limit=1&offset=1&properties=${jsonParam([{ key: 'plan', value: 'pro', type: 'person' }])}`);
    assert.deepEqual(
      page.results.map((p: any) => p.id),
      [ids.bob],
    );
    assert.equal(page.count, 2);
  });

  test('POST is not how persons are created: 405', async () => {
    const response = await server.post(`${PERSONS}/`, { properties: {} });
    assert.equal(response.status, 405);
    assert.deepEqual(response.body, {
      type: 'invalid_request',
      code: 'method_not_allowed',
      detail:
        'Creating persons via this API is not allowed. Please create persons by sending an $identify event. See https://posthog.com/docs/product-analytics/identify for details.',
      attr: null,
    });
  });
});
