import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { capture, type CapturedEvent, validationError } from '../support/definitions.js';
import { ERRORS, TallyServer, type ApiResponse } from '../support/tally.js';

const BASE = '/api/projects/1/groups/';

function identify(groupType: string, groupKey: string, timestamp: string, set: Record<string, unknown>): CapturedEvent {
  return { event: '$groupidentify', timestamp, properties: { $group_type: groupType, $group_key: groupKey, $group_set: set } };
}

function keys(body: { results: { group_key: string }[] }): string[] {
  return body.results.map((result) => result.group_key);
}

const MISSING_INDEX = 'You must pass ?group_type_index= in this URL. To get a list of valid group types, call /api/:project_id/groups_types/.';

/** 250 workspaces named in one request, so they share a creation time and page by key. */
const WORKSPACES = Array.from({ length: 250 }, (_, n) => `ws-${String(n).padStart(3, '0')}`);

describe('groups API', () => {
  let server: TallyServer;
  let secondProjectId: number;
  let noGroupKey: string;
  let writeKey: string;
  let secondOnlyKey: string;

  before(async () => {
    server = new TallyServer(undefined, { TALLY_PROJECT_TOKEN: 'phc_groups_one' });
    const second = server.createProject('Second');
    secondProjectId = second.id;
    server.personalApiKey = server.createKey('*');
    noGroupKey = server.createKey('person:read,query:read');
    writeKey = server.createKey('group:write');
    secondOnlyKey = server.createKey('group:read', [second.id]);
    await server.start();

    await capture(server, 'phc_groups_one', [
      identify('company', 'acme', '2024-01-01T00:00:00Z', { name: 'Acme Inc', seats: 5 }),
      identify('team', 'core', '2024-01-15T00:00:00Z', { name: 'Core team' }),
      identify('company', 'globex', '2024-02-01T00:00:00Z', { name: 'Globex' }),
      identify('company', 'initech', '2024-03-01T00:00:00Z', { name: 'Initech', plan: 'pro' }),
      identify('company', 'b-tie', '2024-04-01T00:00:00Z', {}),
      identify('company', 'a-tie', '2024-04-01T00:00:00Z', {}),
      identify('company', 'C-tie', '2024-04-01T00:00:00Z', { name: 'Third' }),
      // Later identifies change properties, never the creation time.
      identify('company', 'acme', '2024-06-01T00:00:00Z', { seats: 6 }),
      // Named in $groups only: a group exists once a $groupidentify names it.
      { event: 'signup', properties: { $groups: { company: 'hooli' } } },
    ]);
    await capture(
      server,
      'phc_groups_one',
      WORKSPACES.map((key) => identify('workspace', key, '2024-05-05T05:05:05.123456Z', { name: key.toUpperCase() })),
    );
    await capture(server, second.api_token, [identify('company', 'secret-co', '2024-01-01T00:00:00Z', { name: 'Secret' })]);
  });
  after(() => server.dispose());

  async function get(path: string, key?: string): Promise<ApiResponse> {
    return server.get(path, key === undefined ? {} : { key });
  }

  async function ok(path: string) {
    const response = await get(path);
    assert.equal(response.status, 200, response.text);
    return response.body;
  }

  test('groups of a type, newest first then by key, with their properties and creation time', async () => {
    assert.deepEqual(await ok(`${BASE}?group_type_index=0`), {
      next: null,
      previous: null,
      results: [
        { group_type_index: 0, group_key: 'C-tie', group_properties: { name: 'Third' }, created_at: '2024-04-01T00:00:00.000000Z' },
        { group_type_index: 0, group_key: 'a-tie', group_properties: {}, created_at: '2024-04-01T00:00:00.000000Z' },
        { group_type_index: 0, group_key: 'b-tie', group_properties: {}, created_at: '2024-04-01T00:00:00.000000Z' },
        { group_type_index: 0, group_key: 'initech', group_properties: { name: 'Initech', plan: 'pro' }, created_at: '2024-03-01T00:00:00.000000Z' },
        { group_type_index: 0, group_key: 'globex', group_properties: { name: 'Globex' }, created_at: '2024-02-01T00:00:00.000000Z' },
        { group_type_index: 0, group_key: 'acme', group_properties: { name: 'Acme Inc', seats: 6 }, created_at: '2024-01-01T00:00:00.000000Z' },
      ],
    });
    assert.deepEqual(keys(await ok(`${BASE}?group_type_index=1`)), ['core']);
    assert.deepEqual(await ok(`${BASE}?group_type_index=3`), { next: null, previous: null, results: [] });
  });

  test('100 a page; next carries a cursor and yields every group once', async () => {
    const first = await ok(`${BASE}?group_type_index=2`);
    assert.deepEqual(keys(first), WORKSPACES.slice(0, 100));
    assert.equal(first.previous, null);
    assert.equal(first.results[0].created_at, '2024-05-05T05:05:05.123456Z');
    const next = new URL(first.next);
    assert.equal(`${next.origin}${next.pathname}`, `${server.url}${BASE}`);
    assert.deepEqual([...next.searchParams.keys()], ['group_type_index', 'cursor']);
    const second = await ok(first.next.slice(server.url.length));
    assert.deepEqual(keys(second), WORKSPACES.slice(100, 200));
    const third = await ok(second.next.slice(server.url.length));
    assert.deepEqual(keys(third), WORKSPACES.slice(200));
    assert.equal(third.next, null);
  });

  test('search: substring of the key or the name property; group_key: substring of the key; any case', async () => {
    assert.deepEqual(keys(await ok(`${BASE}?group_type_index=0&search=acme`)), ['acme']);
    assert.deepEqual(keys(await ok(`${BASE}?group_type_index=0&search=INC`)), ['acme']);
    assert.deepEqual(keys(await ok(`${BASE}?group_type_index=0&search=thir`)), ['C-tie']);
    assert.deepEqual(keys(await ok(`${BASE}?group_type_index=0&search=TIE`)), ['C-tie', 'a-tie', 'b-tie']);
    assert.deepEqual(keys(await ok(`${BASE}?group_type_index=0&search=%25`)), []);
    assert.deepEqual(keys(await ok(`${BASE}?group_type_index=0&group_key=ME`)), ['acme']);
    assert.deepEqual(keys(await ok(`${BASE}?group_type_index=0&group_key=globe`)), ['globex']);
    assert.deepEqual(keys(await ok(`${BASE}?group_type_index=0&group_key=Globex%20Inc`)), []);
    assert.deepEqual(keys(await ok(`${BASE}?group_type_index=0&group_key=inc`)), [], 'group_key does not look at the name');
    assert.deepEqual(keys(await ok(`${BASE}?group_type_index=2&search=ws-24`)), WORKSPACES.slice(240));
  });

  test('find: one group by type and exact key', async () => {
    assert.deepEqual(await ok(`${BASE}find/?group_type_index=0&group_key=acme`), {
      group_type_index: 0,
      group_key: 'acme',
      group_properties: { name: 'Acme Inc', seats: 6 },
      created_at: '2024-01-01T00:00:00.000000Z',
    });
    for (const query of ['group_type_index=0&group_key=ACME', 'group_type_index=1&group_key=acme', 'group_type_index=0&group_key=hooli']) {
      const response = await get(`${BASE}find/?${query}`);
      assert.equal(response.status, 404, query);
      assert.deepEqual(response.body, ERRORS.notFound);
    }
  });

  test('groups_types: the types capture assigned, by index', async () => {
    const empty = { name_singular: null, name_plural: null, detail_dashboard: null, default_columns: null, created_at: null };
    assert.deepEqual(await ok('/api/projects/1/groups_types/'), [
      { group_type: 'company', group_type_index: 0, ...empty },
      { group_type: 'team', group_type_index: 1, ...empty },
      { group_type: 'workspace', group_type_index: 2, ...empty },
    ]);
    assert.deepEqual(await ok(`/api/projects/${secondProjectId}/groups_types/`), [{ group_type: 'company', group_type_index: 0, ...empty }]);
  });

  test('bad parameters are 400s naming them', async () => {
    const invalidIndex = validationError('group_type_index', 'group_type_index must be an integer from 0 to 4.');
    const cases: [string, object][] = [
      [BASE, validationError('group_type_index', MISSING_INDEX, 'required')],
      [`${BASE}?group_type_index=`, validationError('group_type_index', MISSING_INDEX, 'required')],
      [`${BASE}?group_type_index=company`, invalidIndex],
      [`${BASE}?group_type_index=5`, invalidIndex],
      [`${BASE}?group_type_index=-1`, invalidIndex],
      [`${BASE}?group_type_index=0&cursor=abc`, validationError('cursor', 'Invalid cursor: use the next link of a previous page.', 'invalid')],
      [`${BASE}find/?group_key=acme`, validationError('group_type_index', MISSING_INDEX, 'required')],
      [`${BASE}find/?group_type_index=9&group_key=acme`, invalidIndex],
      [`${BASE}find/?group_type_index=0`, validationError('group_key', 'This field is required.', 'required')],
    ];
    for (const [path, error] of cases) {
      const response = await get(path);
      assert.equal(response.status, 400, path);
      assert.deepEqual(response.body, error, path);
    }
  });

  test("another project's groups are never seen", async () => {
    assert.ok(!keys(await ok(`${BASE}?group_type_index=0`)).includes('secret-co'));
    assert.deepEqual(keys(await ok(`${BASE}?group_type_index=0&search=secret`)), []);
    const find = await get(`${BASE}find/?group_type_index=0&group_key=secret-co`);
    assert.equal(find.status, 404);
    assert.deepEqual(find.body, ERRORS.notFound);
    assert.deepEqual(keys(await ok(`/api/projects/${secondProjectId}/groups/?group_type_index=0`)), ['secret-co']);
  });

  test("scope group:read (group:write implies it) and the key's projects", async () => {
    const paths = [`${BASE}?group_type_index=0`, `${BASE}find/?group_type_index=0&group_key=acme`, '/api/projects/1/groups_types/'];
    for (const path of paths) {
      const denied = await get(path, noGroupKey);
      assert.equal(denied.status, 403, path);
      assert.deepEqual(denied.body, ERRORS.missingScope('group:read'));
      assert.equal((await get(path, writeKey)).status, 200, path);
      const otherProject = await get(path, secondOnlyKey);
      assert.equal(otherProject.status, 403, path);
      assert.deepEqual(otherProject.body, ERRORS.permissionDenied('API key does not have access to the requested project: ID 1.'));
    }
    assert.equal((await get(`/api/projects/${secondProjectId}/groups/?group_type_index=0`, secondOnlyKey)).status, 200);
  });

  test('paths with and without the trailing slash, and under /api/environments/', async () => {
    assert.deepEqual(keys(await ok('/api/projects/1/groups?group_type_index=1')), ['core']);
    assert.equal((await ok('/api/projects/1/groups/find?group_type_index=1&group_key=core')).group_key, 'core');
    assert.equal((await ok('/api/projects/1/groups_types')).length, 3);
    const environments = await ok('/api/environments/1/groups/?group_type_index=2');
    assert.ok(environments.next.startsWith(`${server.url}/api/environments/1/groups/?`), environments.next);
    assert.deepEqual(keys(await ok(environments.next.slice(server.url.length))), WORKSPACES.slice(100, 200));
    assert.equal((await ok('/api/environments/1/groups/find/?group_type_index=1&group_key=core')).group_key, 'core');
    assert.equal((await ok('/api/environments/1/groups_types/')).length, 3);
  });
});
