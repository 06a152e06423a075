import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { capture, startServerWithTwoProjects, validationError } from '../support/definitions.js';
import { ERRORS, type TallyServer } from '../support/tally.js';

const BASE = '/api/projects/1/insights';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const SHORT_ID = /^[A-Za-z0-9]{8}$/;
const RANGE = { date_from: '2020-01-01', date_to: '2020-01-05' };
const PAGEVIEWS = { kind: 'EventsNode', event: '$pageview' };
const COMPUTING_MODES = ['true', 'blocking', 'force_blocking', 'async', 'force_async', 'lazy_async'];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Trend items without the persons links, whose cache key is random on every run. */
function withoutLinks(items: Array<Record<string, unknown>>) {
  return items.map(({ persons_urls: _urls, persons: _persons, ...item }) => item);
}

/** A result with the persons links' cache keys, random on every run, made equal. */
function withoutCacheKeys(result: unknown): unknown {
  return JSON.parse(JSON.stringify(result).replace(/cache_invalidation_key=\w+/g, 'cache_invalidation_key=…'));
}

/** What a trend item says, whatever filter it echoes. */
function numbers(items: Array<Record<string, unknown>>) {
  return items.map((item) => ({
    label: item.label,
    count: item.count,
    data: item.data,
    labels: item.labels,
    days: item.days,
    breakdown_value: item.breakdown_value,
    compare_label: item.compare_label,
    aggregated_value: item.aggregated_value,
  }));
}

/** Saved insights over HTTP: CRUD, soft delete, list filters, and results computed on refresh. */
describe('saved insights API', () => {
  let server: TallyServer;
  let secondProjectId: number;
  let readKey: string;
  let writeKey: string;
  let otherScopeKey: string;
  let adminUuid: string;

  const create = (body: Record<string, unknown>, projectId = 1, headers: Record<string, string> = {}) =>
    server.bodyOf('POST', `/api/projects/${projectId}/insights/`, 201, { body, headers });
  const get = (path: string) => server.bodyOf('GET', path);
  const trend = async (filter: Record<string, unknown>) => (await server.bodyOf('POST', `${BASE}/trend/`, 200, { body: filter })).result;

  before(async () => {
    const started = await startServerWithTwoProjects(['insight:read', 'insight:write', 'project:read']);
    server = started.server;
    secondProjectId = started.secondProject.id;
    readKey = started.scopedKeys.get('insight:read')!;
    writeKey = started.scopedKeys.get('insight:write')!;
    otherScopeKey = started.scopedKeys.get('project:read')!;
    await capture(server, started.firstToken, [
      { event: '$pageview', distinct_id: 'u1', timestamp: '2020-01-01T10:00:00Z', properties: { $browser: 'Chrome', amount: 10 } },
      { event: '$pageview', distinct_id: 'u1', timestamp: '2020-01-01T11:00:00Z', properties: { $browser: 'Chrome', amount: 20 } },
      { event: '$pageview', distinct_id: 'u2', timestamp: '2020-01-02T12:00:00Z', properties: { $browser: 'Safari', amount: 5 } },
      { event: 'sign up', distinct_id: 'u2', timestamp: '2020-01-02T13:00:00Z' },
      { event: '$pageview', distinct_id: 'u3', timestamp: '2020-01-04T09:00:00Z', properties: { $browser: 'Firefox' } },
      { event: 'sign up', distinct_id: 'u3', timestamp: '2020-01-05T00:30:00Z' },
      { event: '$pageview', distinct_id: 'u3', timestamp: '2019-12-29T09:00:00Z', properties: { $browser: 'Firefox' } },
    ]);
    await capture(server, started.secondProject.api_token, [{ event: '$pageview', distinct_id: 'p2', timestamp: '2020-01-01T10:00:00Z' }]);
    adminUuid = (await create({ name: 'probe' })).created_by.uuid;
  });
  after(() => server.dispose());

  test('create answers the record: legacy filters as sent, query null, not saved, no result', async () => {
    const filters = { insight: 'TRENDS', events: [{ id: '$pageview' }], ...RANGE };
    const body = await create({ name: 'Pageviews', description: 'Daily views', filters, tags: ['web', 'kpi', 'web'] });
    assert.match(body.short_id, SHORT_ID);
    assert.match(body.created_at, ISO);
    const creator = { id: 1, uuid: adminUuid, distinct_id: adminUuid, first_name: 'Admin', last_name: '', email: 'admin@localhost', is_email_verified: null };
    assert.deepEqual(body, {
      id: body.id,
      short_id: body.short_id,
      name: 'Pageviews',
      derived_name: null,
      query: null,
      filters,
      order: null,
      deleted: false,
      dashboards: [],
      dashboard_tiles: [],
      last_refresh: null,
      result: null,
      hasMore: null,
      columns: null,
      created_at: body.created_at,
      created_by: creator,
      description: 'Daily views',
      updated_at: body.created_at,
      tags: ['web', 'kpi'],
      favorited: false,
      saved: false,
      last_modified_at: body.created_at,
      last_modified_by: creator,
      effective_restriction_level: 21,
      effective_privilege_level: 37,
      user_access_level: 'editor',
      timezone: null,
      is_cached: false,
      query_status: null,
      hogql: null,
      types: null,
      resolved_date_range: null,
      alerts: [],
    });
    assert.deepEqual(await get(`${BASE}/${body.id}/`), body);
    assert.deepEqual(await get(`${BASE}/${body.short_id}`), body, 'by short_id, without the trailing slash');
    assert.deepEqual(await get(`/api/environments/1/insights/${body.short_id}/`), body);
  });

  test('refresh computes a filters insight through the trend runner: the numbers of /insights/trend/', async () => {
    const filters = {
      insight: 'TRENDS',
      events: [{ id: '$pageview', math: 'sum', math_property: 'amount' }, { id: 'sign up' }],
      breakdown: '$browser',
      ...RANGE,
    };
    const { id } = await create({ name: 'Amount by browser', filters });
    const computed = await get(`${BASE}/${id}/?refresh=force_blocking`);
    const expected = await trend(filters);
    assert.deepEqual(withoutLinks(computed.result), withoutLinks(expected));
    assert.equal(computed.result.length, 4);
    assert.match(computed.last_refresh, ISO);
    assert.equal(computed.is_cached, false);
    assert.equal(computed.timezone, 'UTC');
    assert.equal(computed.hasMore, false);
    assert.deepEqual(computed.resolved_date_range, { date_from: '2020-01-01T00:00:00.000Z', date_to: '2020-01-05T23:59:59.999Z' });

    const kept = await get(`${BASE}/${id}/`);
    assert.deepEqual(kept.result, computed.result, 'the computed result is kept');
    assert.equal(kept.last_refresh, computed.last_refresh);
    assert.equal(kept.is_cached, true);
    assert.equal(kept.timezone, 'UTC');
    assert.equal(kept.updated_at, computed.updated_at, 'computing is no change of the insight');
    for (const mode of ['false', 'force_cache']) assert.equal((await get(`${BASE}/${id}/?refresh=${mode}`)).is_cached, true);
  });

  test('formulas, compare and aggregate displays give the trend endpoint numbers too', async () => {
    for (const filters of [
      { events: [{ id: '$pageview' }, { id: 'sign up' }], formula: 'A + B * 10', ...RANGE },
      { events: [{ id: '$pageview', math: 'dau' }], compare: true, date_from: '2020-01-03', date_to: '2020-01-05' },
      { events: [{ id: '$pageview' }], display: 'ActionsTable', breakdown: '$browser', breakdown_limit: 2, ...RANGE },
    ]) {
      const { id } = await create({ filters });
      const computed = await get(`${BASE}/${id}/?refresh=true`);
      assert.deepEqual(withoutLinks(computed.result), withoutLinks(await trend(filters)), JSON.stringify(filters));
    }
  });

  test('every computing mode computes; false and force_cache do not; other values are a 400', async () => {
    const { id } = await create({ filters: { events: [{ id: 'sign up' }], ...RANGE } });
    for (const mode of COMPUTING_MODES) {
      const body = await get(`${BASE}/${id}/?refresh=${mode}`);
      assert.equal(body.is_cached, false, mode);
      assert.deepEqual(body.result[0].data, [0, 1, 0, 0, 1], mode);
    }
    const { id: fresh } = await create({ filters: { events: [{ id: 'sign up' }], ...RANGE } });
    for (const mode of ['false', 'force_cache']) assert.equal((await get(`${BASE}/${fresh}/?refresh=${mode}`)).result, null, mode);
    const bad = await server.get(`${BASE}/${fresh}/?refresh=sometimes`);
    assert.equal(bad.status, 400);
    assert.deepEqual(
      bad.body,
      validationError(
        'refresh',
        '"sometimes" is not a valid refresh mode: use one of true, blocking, force_blocking, async, force_async, lazy_async, false, force_cache.',
        'invalid_choice',
      ),
    );
  });

  test('a TrendsQuery insight computes through the same runner: same numbers, action.order = series index', async () => {
    const query = {
      kind: 'InsightVizNode',
      source: {
        kind: 'TrendsQuery',
        series: [
          { kind: 'EventsNode', event: '$pageview', math: 'dau', custom_name: 'Viewers' },
          { kind: 'EventsNode', event: 'sign up', properties: [{ key: '$browser', operator: 'is_not_set', type: 'event' }] },
        ],
        dateRange: { date_from: '2020-01-02', date_to: '2020-01-05' },
        interval: 'day',
        breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' },
        trendsFilter: { display: 'ActionsLineGraph', showLegend: true },
      },
    };
    const { id } = await create({ name: 'Query insight', query });
    const computed = await get(`${BASE}/${id}/?refresh=blocking`);
    assert.deepEqual(computed.query, query, 'the query is answered as stored');
    assert.deepEqual(computed.filters, {});
    const expected = await trend({
      events: [
        { id: '$pageview', math: 'dau', custom_name: 'Viewers', order: 0 },
        { id: 'sign up', order: 1, properties: [{ key: '$browser', operator: 'is_not_set', type: 'event' }] },
      ],
      date_from: '2020-01-02',
      date_to: '2020-01-05',
      breakdown: '$browser',
    });
    assert.deepEqual(numbers(computed.result), numbers(expected));
    assert.deepEqual(
      computed.result.map((item: { label: string; data: number[]; action: { order: number } }) => [item.label, item.data, item.action.order]),
      [
        ['$pageview - Firefox', [0, 0, 1, 0], 0],
        ['$pageview - Safari', [1, 0, 0, 0], 0],
        ['sign up - None (i.e. no value)', [1, 0, 0, 1], 1],
      ],
    );
    assert.deepEqual(computed.resolved_date_range, { date_from: '2020-01-02T00:00:00.000Z', date_to: '2020-01-05T23:59:59.999Z' });

    const bare = await create({ query: { ...query.source, compareFilter: { compare: true }, breakdownFilter: null } });
    const compared = await get(`${BASE}/${bare.id}/?refresh=true`);
    const legacy = await trend({
      events: [
        { id: '$pageview', math: 'dau', custom_name: 'Viewers', order: 0 },
        { id: 'sign up', order: 1, properties: [{ key: '$browser', operator: 'is_not_set', type: 'event' }] },
      ],
      date_from: '2020-01-02',
      date_to: '2020-01-05',
      compare: true,
    });
    assert.deepEqual(numbers(compared.result), numbers(legacy));
    assert.equal(compared.result.length, 4);
  });

  test('formulaNodes compute one series each, labelled by custom_name', async () => {
    const { id } = await create({
      query: {
        kind: 'InsightVizNode',
        source: {
          kind: 'TrendsQuery',
          series: [PAGEVIEWS, { kind: 'EventsNode', event: 'sign up' }],
          dateRange: RANGE,
          trendsFilter: { formulaNodes: [{ formula: 'A + B', custom_name: 'All' }, { formula: 'B * 100' }] },
        },
      },
    });
    const { result } = await get(`${BASE}/${id}/?refresh=true`);
    assert.deepEqual(
      result.map((item: { label: string; data: number[] }) => [item.label, item.data]),
      [
        ['All', [2, 2, 0, 1, 1]],
        ['Formula (B * 100)', [0, 100, 0, 0, 100]],
      ],
    );
  });

  test("the scripts' pattern: ?short_id=X&refresh=force_blocking lists that insight with its result", async () => {
    const { short_id: shortId } = await create({ name: 'By short id', filters: { events: [{ id: '$pageview' }], ...RANGE } });
    const body = await get(`${BASE}/?short_id=${shortId}&refresh=force_blocking`);
    assert.equal(body.count, 1);
    assert.equal(body.results[0].short_id, shortId);
    assert.deepEqual(body.results[0].result[0].data, [2, 1, 0, 1, 0]);
    assert.equal(body.results[0].is_cached, false);
    const none = await get(`${BASE}/?short_id=nothing1&refresh=force_blocking`);
    assert.deepEqual(none, { count: 0, next: null, previous: null, results: [] });
  });

  test('query kinds without a runner are stored and answered, but a refresh is a 400 on refresh', async () => {
    const sql = await create({ query: { kind: 'DataVisualizationNode', source: { kind: 'HogQLQuery', query: 'select 1' } } });
    assert.equal((await get(`${BASE}/${sql.id}/`)).result, null);
    const refreshed = await server.get(`${BASE}/${sql.id}/?refresh=true`);
    assert.equal(refreshed.status, 400);
    assert.equal(refreshed.body.attr, 'refresh');
    assert.match(refreshed.body.detail, /^Tally cannot compute HogQLQuery insights yet/);
    const listed = await server.get(`${BASE}/?short_id=${sql.short_id}&refresh=force_blocking`);
    assert.equal(listed.status, 400);
    assert.equal(listed.body.attr, 'refresh');
  });

  test('legacy filters of every kind with a runner are computed on refresh', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [
        {
          insight: 'FUNNELS',
          events: [
            { id: '$pageview', order: 0 },
            { id: 'sign up', order: 1 },
          ],
          date_from: '2020-01-01',
          date_to: '2020-01-05',
        },
        '/insights/funnel/',
      ],
      [{ insight: 'LIFECYCLE', events: [{ id: '$pageview' }], shown_as: 'Lifecycle', date_from: '2020-01-01', date_to: '2020-01-05' }, '/insights/trend/'],
      [{ events: [{ id: '$pageview' }], shown_as: 'Stickiness', date_from: '2020-01-01', date_to: '2020-01-05' }, '/insights/trend/'],
      [{ insight: 'RETENTION', date_to: '2020-01-05', total_intervals: 3 }, '/insights/retention/'],
      [{ insight: 'PATHS', date_from: '2020-01-01', date_to: '2020-01-05' }, '/insights/path/'],
    ];
    for (const [filters, endpoint] of cases) {
      const insight = await create({ filters });
      const computed = await get(`${BASE}/${insight.id}/?refresh=true`);
      const direct = await server.bodyOf('POST', `${BASE}${endpoint.slice('/insights'.length)}`, 200, { body: filters });
      assert.deepEqual(withoutCacheKeys(computed.result), withoutCacheKeys(direct.result), JSON.stringify(filters));
    }
  });

  test('a stored query Tally cannot compute is a 400 naming its dotted path at refresh; bad filters name theirs', async () => {
    const { id } = await create({
      query: { kind: 'InsightVizNode', source: { kind: 'TrendsQuery', series: [{ ...PAGEVIEWS, math: 'first_time_for_user' }] } },
    });
    const refreshed = await server.get(`${BASE}/${id}/?refresh=true`);
    assert.equal(refreshed.status, 400);
    assert.deepEqual(refreshed.body, validationError('query.source.series.0.math', 'Tally cannot compute the math "first_time_for_user" yet.'));
    const bare = await create({ query: { kind: 'TrendsQuery', series: [PAGEVIEWS], dateRange: { date_from: 'soon' } } });
    const bareRefresh = await server.get(`${BASE}/${bare.id}/?refresh=true`);
    assert.deepEqual(bareRefresh.body, validationError('query.dateRange.date_from', 'Unable to parse date "soon".'));
    const filters = await create({ filters: { events: [{ id: '$pageview' }], date_from: 'whenever' } });
    const filtersRefresh = await server.get(`${BASE}/${filters.id}/?refresh=true`);
    assert.equal(filtersRefresh.status, 400);
    assert.deepEqual(filtersRefresh.body, validationError('filters.date_from', 'Unable to parse date_from "whenever".'));
  });

  test('query and filters are checked when written', async () => {
    const cases: Array<[Record<string, unknown>, ReturnType<typeof validationError>]> = [
      [{ query: 'TrendsQuery' }, validationError('query', 'Invalid value: must be object.')],
      [{ query: { series: [] } }, validationError('query.kind', 'This field is required.', 'required')],
      [{ query: { kind: 'SpreadsheetQuery' } }, validationError('query.kind', '"SpreadsheetQuery" is not a kind a saved insight can hold.')],
      [{ query: { kind: 'InsightVizNode' } }, validationError('query.source', 'A InsightVizNode needs a source object.')],
      [
        { query: { kind: 'InsightVizNode', source: { kind: 'HogQLQuery', query: 'select 1' } } },
        validationError(
          'query.source.kind',
          '"HogQLQuery" is not a valid source of a InsightVizNode: TrendsQuery, FunnelsQuery, RetentionQuery, PathsQuery, StickinessQuery, LifecycleQuery.',
        ),
      ],
      [
        { query: { kind: 'DataVisualizationNode', source: { kind: 'TrendsQuery' } } },
        validationError('query.source.kind', '"TrendsQuery" is not a valid source of a DataVisualizationNode: HogQLQuery.'),
      ],
      [{ filters: [1] }, validationError('filters', 'Invalid value: must be object.')],
      [{ name: 'x'.repeat(401) }, validationError('name', 'Ensure this field has no more than 400 characters.', 'max_length')],
      [{ tags: [{ tag: 1 }] }, validationError('tags__0', 'Invalid value: must be string.')],
      [{ favorited: 'often' }, validationError('favorited', 'Invalid value: must be boolean.')],
      [{ dashboards: [424242] }, validationError('dashboards', 'Invalid pk "424242" - object does not exist.', 'does_not_exist')],
    ];
    for (const [body, error] of cases) {
      const response = await server.post(`${BASE}/`, body);
      assert.equal(response.status, 400, JSON.stringify(body));
      assert.deepEqual(response.body, error, JSON.stringify(body));
    }
    const empty = await create({ query: {} });
    assert.equal(empty.query, null, 'an empty query is no query');
  });

  test('X-PostHog-Client: mcp wraps bare insight kinds and HogQL, and needs a query to create', async () => {
    const mcp = { 'x-posthog-client': 'mcp' };
    const trends = await create({ query: { kind: 'TrendsQuery', series: [PAGEVIEWS] } }, 1, mcp);
    assert.deepEqual(trends.query, { kind: 'InsightVizNode', source: { kind: 'TrendsQuery', series: [PAGEVIEWS] } });
    const hogql = await create({ query: { kind: 'HogQLQuery', query: 'select 1' } }, 1, mcp);
    assert.deepEqual(hogql.query, { kind: 'DataVisualizationNode', source: { kind: 'HogQLQuery', query: 'select 1' } });
    const wrapped = { kind: 'InsightVizNode', source: { kind: 'LifecycleQuery', series: [PAGEVIEWS] } };
    assert.deepEqual((await create({ query: wrapped }, 1, mcp)).query, wrapped);
    const missing = await server.post(`${BASE}/`, { name: 'No query' }, { headers: mcp });
    assert.equal(missing.status, 400);
    assert.deepEqual(missing.body, validationError('query', 'This field is required.', 'required'));
    const plain = await create({ query: { kind: 'TrendsQuery', series: [PAGEVIEWS] } });
    assert.equal(plain.query.kind, 'TrendsQuery', 'without the header a bare kind is stored as sent');
  });

  test('PATCH: saved unless said otherwise; last_modified_at moves for material fields only; a new query drops the kept result', async () => {
    const created = await create({ name: 'Editable', filters: { events: [{ id: '$pageview' }], ...RANGE } });
    await sleep(5);
    const favorited = await server.patch(`${BASE}/${created.id}/`, { favorited: true });
    assert.equal(favorited.status, 200, favorited.text);
    assert.equal(favorited.body.favorited, true);
    assert.equal(favorited.body.saved, true, 'a PATCH saves');
    assert.equal(favorited.body.last_modified_at, created.last_modified_at, 'favorited is not material');
    assert.ok(favorited.body.updated_at > created.updated_at);

    const unsaved = await server.patch(`${BASE}/${created.short_id}`, { saved: false });
    assert.equal(unsaved.body.saved, false);
    assert.equal(unsaved.body.last_modified_at, created.last_modified_at);

    await get(`${BASE}/${created.id}/?refresh=true`);
    await sleep(5);
    const renamed = await server.patch(`${BASE}/${created.id}/`, { name: 'Renamed', tags: ['a', 'a', 'b'] }, { key: writeKey });
    assert.equal(renamed.status, 200);
    assert.equal(renamed.body.name, 'Renamed');
    assert.deepEqual(renamed.body.tags, ['a', 'b']);
    assert.ok(renamed.body.last_modified_at > created.last_modified_at);
    assert.equal(renamed.body.is_cached, true, 'a rename keeps the result');

    for (const body of [{ description: 'Now described' }, { filters: { events: [{ id: 'sign up' }], ...RANGE } }]) {
      const before = (await get(`${BASE}/${created.id}/`)).last_modified_at;
      await sleep(5);
      const changed = await server.patch(`${BASE}/${created.id}/`, body);
      assert.ok(changed.body.last_modified_at > before, JSON.stringify(body));
    }
    const afterFilters = await get(`${BASE}/${created.id}/`);
    assert.equal(afterFilters.result, null, 'new filters drop the kept result');
    assert.equal(afterFilters.last_refresh, null);
    assert.deepEqual((await get(`${BASE}/${created.id}/?refresh=true`)).result[0].data, [0, 1, 0, 0, 1]);

    const invalid = await server.patch(`${BASE}/${created.id}/`, { description: 5 });
    assert.equal(invalid.status, 200, 'a number is read as its text, as DRF does');
    assert.equal(invalid.body.description, '5');
  });

  test('delete is soft: PATCH deleted hides the insight and its tiles, PATCH deleted false restores, DELETE is 405', async () => {
    const dashboard = await server.post('/api/projects/1/dashboards/', { name: 'Holder' });
    const created = await create({ name: 'Doomed', dashboards: [dashboard.body.id] });
    assert.deepEqual(created.dashboards, [dashboard.body.id]);
    for (const path of [`${BASE}/${created.id}/`, `${BASE}/${created.id}`, `/api/environments/1/insights/${created.id}/`]) {
      const response = await server.delete(path);
      assert.equal(response.status, 405, path);
      assert.deepEqual(response.body, { type: 'invalid_request', code: 'method_not_allowed', detail: 'Method "DELETE" not allowed.', attr: null });
    }
    const deleted = await server.patch(`${BASE}/${created.id}/`, { deleted: true });
    assert.equal(deleted.status, 200);
    assert.equal(deleted.body.deleted, true);
    assert.deepEqual(deleted.body.dashboards, []);
    assert.equal((await server.get(`${BASE}/${created.id}/`)).status, 404);
    assert.equal((await server.get(`${BASE}/${created.short_id}/`)).status, 404);
    assert.equal((await server.patch(`${BASE}/${created.id}/`, { name: 'Still there?' })).status, 404);
    assert.equal((await get(`${BASE}/?short_id=${created.short_id}`)).count, 0);
    const tiles = (await get(`/api/projects/1/dashboards/${dashboard.body.id}/`)).tiles;
    assert.deepEqual(tiles, []);

    const restored = await server.patch(`${BASE}/${created.id}/`, { deleted: false });
    assert.equal(restored.status, 200);
    assert.equal(restored.body.deleted, false);
    assert.deepEqual(restored.body.dashboards, [], 'tiles stay removed, as in PostHog');
    assert.equal((await get(`${BASE}/${created.short_id}/`)).name, 'Doomed');
  });

  test('dashboards on POST and PATCH place the insight on exactly those dashboards', async () => {
    const first = (await server.post('/api/projects/1/dashboards/', { name: 'First' })).body.id;
    const second = (await server.post('/api/projects/1/dashboards/', { name: 'Second' })).body.id;
    const created = await create({ name: 'Placed', dashboards: [first] });
    const both = await server.patch(`${BASE}/${created.id}/`, { dashboards: [first, second] });
    assert.deepEqual(both.body.dashboards, [first, second]);
    assert.deepEqual(
      both.body.dashboard_tiles.map((tile: { dashboard_id: number; deleted: boolean }) => [tile.dashboard_id, tile.deleted]),
      [
        [first, false],
        [second, false],
      ],
    );
    const onlySecond = await server.patch(`${BASE}/${created.id}/`, { dashboards: [second] });
    assert.deepEqual(onlySecond.body.dashboards, [second]);
    const back = await server.patch(`${BASE}/${created.id}/`, { dashboards: [second, first] });
    assert.deepEqual(back.body.dashboards, [first, second], 'tiles in creation order; the first one revived');
    assert.equal(back.body.dashboard_tiles[0].id, both.body.dashboard_tiles[0].id);
    const foreignDashboard = (await server.post(`/api/projects/${secondProjectId}/dashboards/`, { name: 'Elsewhere' })).body.id;
    const foreign = await server.patch(`${BASE}/${created.id}/`, { dashboards: [foreignDashboard] });
    assert.equal(foreign.status, 400);
    assert.deepEqual(foreign.body, validationError('dashboards', `Invalid pk "${foreignDashboard}" - object does not exist.`, 'does_not_exist'));
  });

  test('list filters: search, saved, favorited, dashboards (all of them), created_by, insight', async () => {
    const marker = `zq${Date.now()}`;
    const dashA = (await server.post('/api/projects/1/dashboards/', { name: 'A' })).body.id;
    const dashB = (await server.post('/api/projects/1/dashboards/', { name: 'B' })).body.id;
    const one = await create({ name: `${marker} One`, saved: true, filters: { insight: 'TRENDS' } });
    const two = await create({ name: 'Two', derived_name: `${marker.toUpperCase()} derived`, favorited: true, dashboards: [dashA, dashB] });
    const three = await create({ name: 'Three', description: `about ${marker}`, dashboards: [dashA], query: { kind: 'TrendsQuery', series: [] } });
    const four = await create({
      name: `${marker} four`,
      query: { kind: 'InsightVizNode', source: { kind: 'RetentionQuery', retentionFilter: {} } },
    });
    const five = await create({
      name: `${marker} five`,
      query: { kind: 'DataTableNode', source: { kind: 'HogQLQuery', query: 'select 1' } },
    });
    const six = await create({ name: `${marker} six`, query: { kind: 'DataTableNode', source: { kind: 'EventsQuery', select: ['*'] } } });
    const idsOf = (body: { results: Array<{ id: number }> }) => body.results.map((insight) => insight.id).sort((a, b) => a - b);
    const ids = async (query: string) => idsOf(await get(`${BASE}/?search=${marker}&${query}`));

    assert.deepEqual(await ids(''), [one.id, two.id, three.id, four.id, five.id, six.id]);
    assert.deepEqual(idsOf(await get(`${BASE}/?search=${marker.toUpperCase()}%20ONE`)), [one.id], 'case-insensitive, the whole term');
    assert.deepEqual(idsOf(await get(`${BASE}/?search=${marker}%20derived`)), [two.id], 'derived_name');
    assert.deepEqual(await ids('saved=true'), [one.id, two.id, three.id], 'saved, or on a dashboard');
    assert.deepEqual(await ids('saved=false'), [two.id, three.id, four.id, five.id, six.id]);
    assert.deepEqual(await ids('favorited=true'), [two.id]);
    assert.deepEqual(await ids('favorited=0'), [one.id, three.id, four.id, five.id, six.id]);
    assert.deepEqual(await ids(`dashboards=[${dashA}]`), [two.id, three.id]);
    assert.deepEqual(await ids(`dashboards=[${dashA},${dashB}]`), [two.id]);
    assert.deepEqual(await ids('created_by=[1]'), [one.id, two.id, three.id, four.id, five.id, six.id]);
    assert.deepEqual(await ids('created_by=[2]'), []);
    assert.deepEqual(await ids('insight=TRENDS'), [one.id, two.id, three.id]);
    assert.deepEqual(await ids('insight=retention'), [four.id]);
    assert.deepEqual(await ids('insight=SQL'), [five.id]);
    assert.deepEqual(await ids('insight=JSON'), [six.id]);

    for (const [query, attr] of [
      ['saved=maybe', 'saved'],
      ['favorited=2', 'favorited'],
      ['dashboards=1', 'dashboards'],
      ['dashboards=[', 'dashboards'],
      ['created_by=["a"]', 'created_by'],
      ['insight=HEATMAP', 'insight'],
      ['order=views', 'order'],
      ['limit=ten', 'limit'],
    ]) {
      const response = await server.get(`${BASE}/?${query}`);
      assert.equal(response.status, 400, query);
      assert.equal(response.body.attr, attr, query);
    }
  });

  test('order: -last_modified_at by default, or id, created_at, last_modified_at, name either way; pages', async () => {
    const marker = `ord${Date.now()}`;
    const b = await create({ name: `${marker} b` });
    await sleep(5);
    const c = await create({ name: `${marker} c` });
    await sleep(5);
    const a = await create({ name: `${marker} a` });
    await sleep(5);
    await server.patch(`${BASE}/${b.id}/`, { name: `${marker} B` });
    const names = async (order: string) => (await get(`${BASE}/?search=${marker}${order}`)).results.map((insight: { name: string }) => insight.name);
    assert.deepEqual(await names(''), [`${marker} B`, `${marker} a`, `${marker} c`]);
    assert.deepEqual(await names('&order=last_modified_at'), [`${marker} c`, `${marker} a`, `${marker} B`]);
    assert.deepEqual(await names('&order=id'), [`${marker} B`, `${marker} c`, `${marker} a`]);
    assert.deepEqual(await names('&order=-created_at'), [`${marker} a`, `${marker} c`, `${marker} B`]);
    assert.deepEqual(await names('&order=name'), [`${marker} B`, `${marker} a`, `${marker} c`], 'code-point order');
    assert.deepEqual(await names('&order=-name'), [`${marker} c`, `${marker} a`, `${marker} B`]);
    assert.equal(a.id > c.id, true);

    const page = await get(`${BASE}/?search=${marker}&limit=2`);
    assert.equal(page.count, 3);
    assert.equal(page.next, `${server.url}${BASE}/?search=${marker}&limit=2&offset=2`);
    assert.equal(page.previous, null);
    const last = await get(`${BASE}/?search=${marker}&limit=2&offset=2`);
    assert.equal(last.results.length, 1);
    assert.equal(last.next, null);
    assert.equal(last.previous, `${server.url}${BASE}/?search=${marker}&limit=2&offset=0`);
  });

  test('scopes: insight:read reads, insight:write writes and reads, others are 403', async () => {
    const created = await create({ name: 'Scoped' });
    const denied = await server.get(`${BASE}/`, { key: otherScopeKey });
    assert.equal(denied.status, 403);
    assert.deepEqual(denied.body, ERRORS.missingScope('insight:read'));
    assert.deepEqual((await server.get(`${BASE}/${created.id}/`, { key: otherScopeKey })).body, ERRORS.missingScope('insight:read'));
    assert.equal((await server.get(`${BASE}/${created.id}/`, { key: readKey })).status, 200);
    assert.equal((await server.get(`${BASE}/`, { key: writeKey })).status, 200, 'write implies read');
    const post = await server.post(`${BASE}/`, { name: 'Nope' }, { key: readKey });
    assert.equal(post.status, 403);
    assert.deepEqual(post.body, ERRORS.missingScope('insight:write'));
    const patch = await server.patch(`${BASE}/${created.id}/`, { name: 'Nope' }, { key: readKey });
    assert.deepEqual(patch.body, ERRORS.missingScope('insight:write'));
    assert.equal((await server.post(`${BASE}/`, { name: 'Yes' }, { key: writeKey })).status, 201);
    assert.equal((await server.get(`${BASE}/`, { key: null })).status, 401);
  });

  test("another project's insight is a 404 by id and by short_id; its list is its own", async () => {
    const foreign = await create({ name: 'Second project insight' }, secondProjectId);
    for (const key of [foreign.id, foreign.short_id]) {
      const response = await server.get(`${BASE}/${key}/`);
      assert.equal(response.status, 404);
      assert.deepEqual(response.body, ERRORS.notFound);
      assert.equal((await server.patch(`${BASE}/${key}/`, { name: 'Taken' })).status, 404);
      assert.equal((await server.patch(`${BASE}/${key}/`, { deleted: false })).status, 404);
    }
    const unknown = await server.get(`${BASE}/999999/`);
    assert.deepEqual(unknown.body, ERRORS.notFound);
    const list = await get(`/api/projects/${secondProjectId}/insights/`);
    assert.deepEqual(
      list.results.map((insight: { id: number }) => insight.id),
      [foreign.id],
    );
    assert.equal((await get(`/api/projects/${secondProjectId}/insights/${foreign.short_id}/`)).name, 'Second project insight');
  });

  test('the fixed sub-paths win: /insights/trend/ still answers the trend; other names are no insight', async () => {
    const response = await server.get(
      `${BASE}/trend/?events=${encodeURIComponent(JSON.stringify([{ id: '$pageview' }]))}&date_from=2020-01-01&date_to=2020-01-05`,
    );
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.body.result[0].data, [2, 1, 0, 1, 0]);
    const viaEnvironments = await server.get(
      `/api/environments/1/insights/trend?events=${encodeURIComponent(JSON.stringify([{ id: 'sign up' }]))}&date_from=2020-01-01&date_to=2020-01-05`,
    );
    assert.deepEqual(viaEnvironments.body.result[0].data, [0, 1, 0, 0, 1]);
    for (const path of ['trending', 'activity', 'my_last_viewed']) assert.equal((await server.get(`${BASE}/${path}/`)).status, 404, path);
    assert.equal((await server.get(`${BASE}/1/sharing/`)).status, 404);
  });
});
