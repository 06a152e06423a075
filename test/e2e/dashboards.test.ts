import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { capture, startServerWithTwoProjects, validationError } from '../support/definitions.js';
import { ERRORS, type TallyServer } from '../support/tally.js';

const BASE = '/api/projects/1/dashboards';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const FILTERS = { events: [{ id: '$pageview' }], date_from: '2020-01-01', date_to: '2020-01-03' };

/** Dashboards over HTTP: CRUD, soft delete, text and insight tiles, and tile results on refresh. */
describe('dashboards API', () => {
  let server: TallyServer;
  let secondProjectId: number;
  let readKey: string;
  let writeKey: string;
  let otherScopeKey: string;
  let creator: Record<string, unknown>;

  const create = (body: Record<string, unknown>, projectId = 1) => server.bodyOf('POST', `/api/projects/${projectId}/dashboards/`, 201, { body });
  const get = (path: string) => server.bodyOf('GET', path);
  const patch = (path: string, body: Record<string, unknown>) => server.bodyOf('PATCH', path, 200, { body });
  const createInsight = (body: Record<string, unknown>) => server.bodyOf('POST', '/api/projects/1/insights/', 201, { body });

  before(async () => {
    const started = await startServerWithTwoProjects(['dashboard:read', 'dashboard:write', 'insight:write']);
    server = started.server;
    secondProjectId = started.secondProject.id;
    readKey = started.scopedKeys.get('dashboard:read')!;
    writeKey = started.scopedKeys.get('dashboard:write')!;
    otherScopeKey = started.scopedKeys.get('insight:write')!;
    await capture(server, started.firstToken, [
      { event: '$pageview', distinct_id: 'u1', timestamp: '2020-01-01T10:00:00Z' },
      { event: '$pageview', distinct_id: 'u2', timestamp: '2020-01-03T10:00:00Z' },
    ]);
    creator = (await createInsight({ name: 'probe' })).created_by;
  });
  after(() => server.dispose());

  test('create answers the record with its tiles; the list answers it without', async () => {
    const body = await create({
      name: 'Growth',
      description: 'Weekly review',
      pinned: true,
      tags: ['team', 'team', 'kpi'],
      filters: { date_from: '-30d' },
      variables: { v: 1 },
      restriction_level: 21,
    });
    assert.match(body.created_at, ISO);
    const basic = {
      id: body.id,
      name: 'Growth',
      description: 'Weekly review',
      pinned: true,
      created_at: body.created_at,
      created_by: creator,
      last_accessed_at: null,
      is_shared: false,
      deleted: false,
      creation_mode: 'default',
      filters: { date_from: '-30d' },
      variables: { v: 1 },
      tags: ['team', 'kpi'],
      restriction_level: 21,
      effective_restriction_level: 21,
      effective_privilege_level: 37,
      last_refresh: null,
      team_id: 1,
    };
    assert.deepEqual(body, { ...basic, tiles: [] });
    const listed = await get(`${BASE}/`);
    assert.deepEqual(
      listed.results.find((dashboard: { id: number }) => dashboard.id === body.id),
      basic,
    );
    const retrieved = await get(`${BASE}/${body.id}`);
    assert.match(retrieved.last_accessed_at, ISO, 'looking at a dashboard sets last_accessed_at');
    assert.deepEqual(retrieved, { ...basic, last_accessed_at: retrieved.last_accessed_at, tiles: [] });
    assert.equal((await get(`/api/environments/1/dashboards/${body.id}/`)).name, 'Growth');
  });

  test('list: pinned first, then by name (unnamed last); paged', async () => {
    await create({ name: 'beta' }, secondProjectId);
    await create({ name: 'Alpha' }, secondProjectId);
    await create({ name: 'gamma', pinned: true }, secondProjectId);
    await create({}, secondProjectId);
    const list = `/api/projects/${secondProjectId}/dashboards/`;
    const names = (await get(list)).results.map((dashboard: { name: string }) => dashboard.name);
    assert.deepEqual(names, ['gamma', 'Alpha', 'beta', null]);
    const page = await get(`${list}?limit=2&offset=1`);
    assert.equal(page.count, 4);
    assert.deepEqual(
      page.results.map((dashboard: { name: string }) => dashboard.name),
      ['Alpha', 'beta'],
    );
    assert.equal(page.next, `${server.url}${list}?limit=2&offset=3`);
    assert.equal(page.previous, `${server.url}${list}?limit=2&offset=0`);
  });

  test("tiles: insights through the insight's dashboards, texts through PATCH tiles; color, layouts, removal", async () => {
    const dashboard = await create({ name: 'Tiles' });
    const insight = await createInsight({ name: 'Views', filters: FILTERS, dashboards: [dashboard.id] });
    const withText = await patch(`${BASE}/${dashboard.id}/`, {
      tiles: [{ text: { body: '## Notes' }, color: 'blue', layouts: { sm: { x: 0, y: 0, w: 12, h: 1 } } }],
    });
    assert.equal(withText.tiles.length, 2);
    const [insightTile, textTile] = withText.tiles;
    assert.deepEqual(Object.keys(insightTile), ['id', 'insight', 'text', 'color', 'layouts', 'order', 'last_refresh', 'is_cached']);
    assert.equal(insightTile.insight.id, insight.id);
    assert.equal(insightTile.insight.short_id, insight.short_id);
    assert.deepEqual(insightTile.insight.dashboards, [dashboard.id]);
    assert.deepEqual(
      { ...insightTile, insight: null },
      { id: insightTile.id, insight: null, text: null, color: null, layouts: {}, order: 0, last_refresh: null, is_cached: false },
    );
    assert.deepEqual(textTile, {
      id: textTile.id,
      insight: null,
      text: { id: textTile.text.id, body: '## Notes' },
      color: 'blue',
      layouts: { sm: { x: 0, y: 0, w: 12, h: 1 } },
      order: 1,
      last_refresh: null,
      is_cached: false,
    });

    const changed = await patch(`${BASE}/${dashboard.id}/`, {
      tiles: [
        { id: insightTile.id, color: 'red', layouts: { sm: { w: 6 } } },
        { id: textTile.id, text: { body: 'Edited' } },
      ],
    });
    assert.deepEqual(
      changed.tiles.map((tile: { color: string; layouts: unknown; text: { body: string } | null }) => [tile.color, tile.layouts, tile.text?.body ?? null]),
      [
        ['red', { sm: { w: 6 } }, null],
        ['blue', { sm: { x: 0, y: 0, w: 12, h: 1 } }, 'Edited'],
      ],
    );

    const removed = await patch(`${BASE}/${dashboard.id}/`, { tiles: [{ id: insightTile.id, deleted: true }] });
    assert.deepEqual(
      removed.tiles.map((tile: { id: number }) => tile.id),
      [textTile.id],
    );
    const stillThere = await get(`/api/projects/1/insights/${insight.id}/`);
    assert.deepEqual(stillThere.dashboards, [], 'the insight stays, off the dashboard');

    for (const [tiles, detail] of [
      [[{ body: 'no text' }], "A new tile needs a text: insights are put on a dashboard through the insight's dashboards."],
      [[{ insight: { id: insight.id } }], "A new tile needs a text: insights are put on a dashboard through the insight's dashboards."],
      [[{ id: 987654, color: 'red' }], 'This dashboard has no tile 987654.'],
      [[{ id: insightTile.id, color: 'red' }], `This dashboard has no tile ${insightTile.id}.`],
      [{ text: { body: 'not a list' } }, 'Invalid value: must be array.'],
    ] as const) {
      const response = await server.patch(`${BASE}/${dashboard.id}/`, { tiles });
      assert.equal(response.status, 400, JSON.stringify(tiles));
      assert.equal(response.body.attr, 'tiles', JSON.stringify(tiles));
      assert.equal(response.body.detail, detail, JSON.stringify(tiles));
    }
    const other = await create({ name: 'Other' });
    const foreignTile = await server.patch(`${BASE}/${other.id}/`, { tiles: [{ id: textTile.id, deleted: true }] });
    assert.equal(foreignTile.status, 400, "another dashboard's tile");
    assert.equal((await get(`${BASE}/${dashboard.id}/`)).tiles.length, 1);
  });

  test('refresh computes every insight tile; the result is kept for later reads', async () => {
    const dashboard = await create({ name: 'Refreshing' });
    const insight = await createInsight({ name: 'Views', filters: FILTERS, dashboards: [dashboard.id] });
    const plain = await get(`${BASE}/${dashboard.id}/`);
    assert.equal(plain.tiles[0].insight.result, null);
    assert.equal(plain.last_refresh, null);
    const refreshed = await get(`${BASE}/${dashboard.id}/?refresh=force_blocking`);
    const [tile] = refreshed.tiles;
    assert.deepEqual(tile.insight.result[0].data, [1, 0, 1]);
    assert.equal(tile.is_cached, false);
    assert.match(tile.last_refresh, ISO);
    assert.equal(tile.last_refresh, tile.insight.last_refresh);
    assert.match(refreshed.last_refresh, ISO);
    const later = await get(`${BASE}/${dashboard.id}/`);
    assert.equal(later.tiles[0].is_cached, true);
    assert.deepEqual(later.tiles[0].insight.result, tile.insight.result);
    assert.equal(later.last_refresh, refreshed.last_refresh);
    assert.equal((await get(`/api/projects/1/insights/${insight.id}/`)).is_cached, true);
    const bad = await server.get(`${BASE}/${dashboard.id}/?refresh=maybe`);
    assert.equal(bad.status, 400);
    assert.equal(bad.body.attr, 'refresh');
  });

  test('delete is soft: tiles follow the dashboard; PATCH deleted false restores it; DELETE is 405', async () => {
    const dashboard = await create({ name: 'Doomed', tiles: [{ text: { body: 'hello' } }] });
    const insight = await createInsight({ name: 'On it', dashboards: [dashboard.id] });
    for (const path of [`${BASE}/${dashboard.id}/`, `${BASE}/${dashboard.id}`, `/api/environments/1/dashboards/${dashboard.id}/`]) {
      const response = await server.delete(path);
      assert.equal(response.status, 405, path);
      assert.equal(response.body.code, 'method_not_allowed');
    }
    const deleted = await patch(`${BASE}/${dashboard.id}/`, { deleted: true });
    assert.equal(deleted.deleted, true);
    assert.deepEqual(deleted.tiles, []);
    assert.equal((await server.get(`${BASE}/${dashboard.id}/`)).status, 404);
    assert.equal((await server.patch(`${BASE}/${dashboard.id}/`, { name: 'x' })).status, 404);
    assert.equal(
      (await get(`${BASE}/?limit=1000`)).results.some((listed: { id: number }) => listed.id === dashboard.id),
      false,
    );
    assert.deepEqual((await get(`/api/projects/1/insights/${insight.id}/`)).dashboards, []);

    const restored = await patch(`${BASE}/${dashboard.id}/`, { deleted: false });
    assert.equal(restored.deleted, false);
    assert.deepEqual(
      restored.tiles.map((tile: { insight: { id: number } | null; text: { body: string } | null }) => tile.insight?.id ?? tile.text?.body),
      ['hello', insight.id],
    );
    assert.deepEqual((await get(`/api/projects/1/insights/${insight.id}/`)).dashboards, [dashboard.id]);
  });

  test('bad input is a 400 naming the field', async () => {
    const dashboard = await create({ name: 'Valid' });
    const cases: Array<[Record<string, unknown>, ReturnType<typeof validationError>]> = [
      [{ use_template: 'DEFAULT_APP' }, validationError('use_template', 'Tally cannot create a dashboard from a template yet.')],
      [{ use_dashboard: dashboard.id }, validationError('use_dashboard', 'Tally cannot create a dashboard from another dashboard yet.')],
      [{ restriction_level: 37 }, validationError('restriction_level', 'Tally has no access control: the restriction level is always 21.')],
      [{ filters: ['x'] }, validationError('filters', 'Invalid value: must be object.')],
      [{ variables: 'x' }, validationError('variables', 'Invalid value: must be object.')],
      [{ name: 'n'.repeat(401) }, validationError('name', 'Ensure this field has no more than 400 characters.', 'max_length')],
      [{ pinned: 'sometimes' }, validationError('pinned', 'Invalid value: must be boolean.')],
    ];
    for (const [body, error] of cases) {
      const created = await server.post(`${BASE}/`, body);
      assert.equal(created.status, 400, JSON.stringify(body));
      assert.deepEqual(created.body, error, JSON.stringify(body));
      const changed = await server.patch(`${BASE}/${dashboard.id}/`, body);
      assert.deepEqual(changed.body, error, JSON.stringify(body));
    }
    assert.equal((await get(`${BASE}/${dashboard.id}/`)).name, 'Valid');
  });

  test('scopes: dashboard:read reads, dashboard:write writes and reads, others are 403', async () => {
    const dashboard = await create({ name: 'Scoped' });
    assert.deepEqual((await server.get(`${BASE}/`, { key: otherScopeKey })).body, ERRORS.missingScope('dashboard:read'));
    assert.deepEqual((await server.get(`${BASE}/${dashboard.id}/`, { key: otherScopeKey })).body, ERRORS.missingScope('dashboard:read'));
    assert.equal((await server.get(`${BASE}/${dashboard.id}/`, { key: readKey })).status, 200);
    assert.equal((await server.get(`${BASE}/`, { key: writeKey })).status, 200);
    const post = await server.post(`${BASE}/`, { name: 'Nope' }, { key: readKey });
    assert.equal(post.status, 403);
    assert.deepEqual(post.body, ERRORS.missingScope('dashboard:write'));
    assert.deepEqual((await server.patch(`${BASE}/${dashboard.id}/`, { name: 'Nope' }, { key: readKey })).body, ERRORS.missingScope('dashboard:write'));
    assert.equal((await server.patch(`${BASE}/${dashboard.id}/`, { name: 'Yes' }, { key: writeKey })).status, 200);
  });

  test("another project's dashboard is a 404; so are ids that are no integers", async () => {
    const foreign = await create({ name: 'Elsewhere' }, secondProjectId);
    for (const request of [
      () => server.get(`${BASE}/${foreign.id}/`),
      () => server.patch(`${BASE}/${foreign.id}/`, { name: 'Taken' }),
      () => server.patch(`${BASE}/${foreign.id}/`, { deleted: false }),
      () => server.get(`${BASE}/abc/`),
      () => server.get(`${BASE}/999999/`),
    ]) {
      const response = await request();
      assert.equal(response.status, 404);
      assert.deepEqual(response.body, ERRORS.notFound);
    }
    assert.equal((await get(`/api/projects/${secondProjectId}/dashboards/${foreign.id}/`)).name, 'Elsewhere');
  });
});
