import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { capture } from '../support/definitions.js';
import { QUERY_TOKEN, runQuery, startQueryServer } from '../support/query-server.js';
import { ERRORS, type TallyServer } from '../support/tally.js';

const HOGQL = { kind: 'HogQLQuery', query: 'select 1' };
const DAY_MS = 86_400_000;

function invalid(attr: string, detail: string, code = 'invalid_input') {
  return { type: 'validation_error', code, detail, attr };
}

describe('query API transport', () => {
  let server: TallyServer;
  let foreignId: number;
  let keys: Record<string, string>;

  before(async () => {
    const started = await startQueryServer(['query:read', 'insight:read', 'query:write', 'person:read']);
    server = started.server;
    foreignId = started.foreign.id;
    keys = started.keys;
    const day = (offset: number, hour = 12) => new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS - offset * DAY_MS + hour * 3_600_000).toISOString();
    await capture(server, QUERY_TOKEN, [
      { event: '$pageview', distinct_id: 'ada', timestamp: day(1), properties: { $browser: 'Chrome' } },
      { event: '$pageview', distinct_id: 'ada', timestamp: day(1, 13), properties: { $browser: 'Chrome' } },
      { event: '$pageview', distinct_id: 'bob', timestamp: day(2), properties: { $browser: 'Safari' } },
      { event: '$pageview', distinct_id: 'cyd', timestamp: day(4), properties: { $browser: 'Firefox' } },
      { event: 'signed up', distinct_id: 'bob', timestamp: day(2, 14) },
      { event: '$pageview', distinct_id: 'old', timestamp: day(10), properties: { $browser: 'Chrome' } },
    ]);
  });
  after(() => server.dispose());

  test('wrappers run their source', async () => {
    const table = await runQuery(server, { kind: 'DataTableNode', source: HOGQL });
    assert.deepEqual(table.body.results, [[1]]);
    const visualization = await runQuery(server, { kind: 'DataVisualizationNode', source: HOGQL });
    assert.deepEqual(visualization.body.results, [[1]]);
    const insight = await runQuery(server, { kind: 'InsightVizNode', source: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'signed up' }] } });
    assert.equal(insight.status, 200);
    assert.equal(insight.body.results[0].count, 1);
  });

  test('malformed nodes: 400 with the dotted path of the field', async () => {
    const cases: [unknown, ReturnType<typeof invalid>][] = [
      [undefined, invalid('query', 'This field is required.', 'required')],
      ['select 1', invalid('query', 'Query must be a JSON object with a "kind".')],
      [{}, invalid('query.kind', 'This field is required.', 'required')],
      [
        { kind: 'NoSuchQuery' },
        invalid(
          'query.kind',
          'Unknown query kind "NoSuchQuery". Tally runs HogQLQuery, EventsQuery, HogQLMetadata, TrendsQuery, FunnelsQuery, FunnelCorrelationQuery, RetentionQuery, LifecycleQuery, StickinessQuery, PathsQuery, ActorsQuery, InsightActorsQuery, FunnelsActorsQuery, StickinessActorsQuery, FunnelCorrelationActorsQuery, and InsightVizNode, DataTableNode, DataVisualizationNode around them.',
        ),
      ],
      [{ kind: 'WebOverviewQuery' }, invalid('query.kind', 'Tally cannot run WebOverviewQuery queries yet.')],
      [{ kind: 'InsightVizNode' }, invalid('query.source', 'A InsightVizNode needs a source.', 'required')],
      [
        { kind: 'InsightVizNode', source: HOGQL },
        invalid(
          'query.source.kind',
          'An InsightVizNode shows an insight (TrendsQuery, FunnelsQuery, RetentionQuery, PathsQuery, StickinessQuery, LifecycleQuery), not a HogQLQuery.',
        ),
      ],
      [
        { kind: 'DataTableNode', source: { kind: 'DataTableNode', source: HOGQL } },
        invalid('query.source.kind', 'A DataTableNode cannot show another DataTableNode.'),
      ],
      [{ kind: 'InsightVizNode', source: { kind: 'FunnelsQuery', series: [] } }, invalid('query.source.series', 'A funnel needs at least two steps.')],
      [
        { kind: 'TrendsQuery', series: [{ kind: 'DataWarehouseNode' }] },
        invalid('query.series.0.kind', 'Tally has no data warehouse: series must be EventsNode or ActionsNode.'),
      ],
      [{ kind: 'TrendsQuery', series: [], dateRange: { date_from: 'someday' } }, invalid('query.dateRange.date_from', 'Unable to parse date "someday".')],
      [
        { kind: 'TrendsQuery', series: [], dateRange: { date_from: '-9999999999h' } },
        invalid('query.dateRange.date_from', 'Unable to parse date "-9999999999h".'),
      ],
      [
        { kind: 'InsightVizNode', source: { kind: 'TrendsQuery', series: [], interval: 'minute' } },
        invalid('query.source.interval', 'Tally has no minute buckets: use hour, day, week or month.'),
      ],
    ];
    for (const [query, error] of cases) {
      const response = await server.post('/api/projects/1/query/', query === undefined ? {} : { query });
      assert.equal(response.status, 400, JSON.stringify(query));
      assert.deepEqual(response.body, error, JSON.stringify(query));
    }
  });

  test('every refresh mode computes; async modes add a complete query_status', async () => {
    for (const refresh of ['blocking', 'force_blocking', 'force_cache', 'false', 'true', true, false, undefined]) {
      const { status, body } = await runQuery(server, HOGQL, { extra: { refresh } });
      assert.equal(status, 200, String(refresh));
      assert.deepEqual(body.results, [[1]]);
      assert.equal(body.query_status, undefined, String(refresh));
    }
    for (const refresh of ['async', 'force_async', 'lazy_async']) {
      const { body } = await runQuery(server, HOGQL, { extra: { refresh } });
      assert.deepEqual(body.results, [[1]]);
      assert.equal(body.query_status.complete, true);
      assert.equal(body.query_status.error, false);
      assert.equal(body.query_status.query_async, true);
      assert.match(body.query_status.id, /^[0-9a-f-]{36}$/);
    }
    const legacy = await runQuery(server, HOGQL, { extra: { async: true } });
    assert.equal(legacy.body.query_status.complete, true);
    assert.deepEqual((await runQuery(server, HOGQL, { extra: { refresh: 'sometimes' } })).body, {
      type: 'validation_error',
      code: 'invalid_choice',
      detail: '"sometimes" is not a valid refresh mode: use one of blocking, force_blocking, async, force_async, lazy_async, force_cache, true, false.',
      attr: 'refresh',
    });
  });

  test('GET /query/:id/ answers the status with the results; DELETE forgets it; other projects never see it', async () => {
    const created = await runQuery(server, HOGQL, { extra: { refresh: 'async', client_query_id: 'my-query-1' } });
    assert.equal(created.body.query_status.id, 'my-query-1');
    for (const path of ['/api/projects/1/query/my-query-1/', '/api/projects/1/query/my-query-1', '/api/environments/1/query/my-query-1/']) {
      const status = await server.bodyOf('GET', path);
      assert.equal(status.query_status.id, 'my-query-1');
      assert.equal(status.query_status.complete, true);
      assert.deepEqual(status.query_status.results.results, [[1]]);
      assert.ok(Date.parse(status.query_status.expiration_time) - Date.now() >= 10 * 60 * 1000 - 5000);
    }
    const foreign = await server.get(`/api/projects/${foreignId}/query/my-query-1/`);
    assert.deepEqual([foreign.status, foreign.body], [404, ERRORS.notFound]);
    assert.equal((await server.get('/api/projects/1/query/unknown-id/')).status, 404);
    const deleted = await server.delete('/api/projects/1/query/my-query-1/');
    assert.equal(deleted.status, 204);
    assert.equal(deleted.text, '');
    assert.equal((await server.get('/api/projects/1/query/my-query-1/')).status, 404);
    assert.equal((await server.delete('/api/environments/1/query/my-query-1')).status, 204);
  });

  test("POST /query/<Kind>/: the kind in the path must be the body's", async () => {
    assert.deepEqual((await server.bodyOf('POST', '/api/projects/1/query/HogQLQuery/', 200, { body: { query: HOGQL } })).results, [[1]]);
    const mismatch = await server.post('/api/projects/1/query/EventsQuery/', { query: HOGQL });
    assert.deepEqual(mismatch.body, invalid('query.kind', 'Query kind mismatch: path kind "EventsQuery" does not match body kind "HogQLQuery".'));
  });

  test('scopes: query:read, or insight:read; anything else is a 403', async () => {
    for (const scopes of ['query:read', 'insight:read', 'query:write']) {
      const { status } = await runQuery(server, HOGQL, { key: keys[scopes] });
      assert.equal(status, 200, scopes);
      const created = await runQuery(server, HOGQL, { key: keys[scopes], extra: { refresh: 'async', client_query_id: `scoped-${scopes}` } });
      assert.equal((await server.get(`/api/projects/1/query/scoped-${scopes}/`, { key: keys[scopes] })).status, 200);
      assert.equal(created.status, 200);
    }
    const denied = await runQuery(server, HOGQL, { key: keys['person:read'] });
    assert.deepEqual([denied.status, denied.body], [403, ERRORS.missingScope('query:read')]);
    assert.equal((await server.get('/api/projects/1/query/x/', { key: keys['person:read'] })).status, 403);
    assert.equal((await server.delete('/api/projects/1/query/x/', { key: keys['person:read'] })).status, 403);
  });

  test('the envelope: is_cached, last_refresh, timezone, timings', async () => {
    const { body } = await runQuery(server, HOGQL);
    assert.equal(body.is_cached, false);
    assert.equal(body.timezone, 'UTC');
    assert.deepEqual(body.timings, []);
    assert.ok(Math.abs(Date.parse(body.last_refresh) - Date.now()) < 60_000);
  });

  test('TrendsQuery gives the numbers and strings of /insights/trend/ for the same question', async () => {
    const questions: [Record<string, unknown>, Record<string, unknown>][] = [
      [
        {
          kind: 'TrendsQuery',
          series: [
            { kind: 'EventsNode', event: '$pageview' },
            { kind: 'EventsNode', event: '$pageview', math: 'dau' },
          ],
          dateRange: { date_from: '-7d' },
        },
        {
          events: [
            { id: '$pageview', order: 0 },
            { id: '$pageview', order: 1, math: 'dau' },
          ],
          date_from: '-7d',
        },
      ],
      [
        {
          kind: 'TrendsQuery',
          series: [{ kind: 'EventsNode', event: '$pageview' }],
          breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' },
          dateRange: { date_from: '-14d' },
        },
        { events: [{ id: '$pageview', order: 0 }], breakdown: '$browser', breakdown_type: 'event', date_from: '-14d' },
      ],
      [
        { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], compareFilter: { compare: true }, dateRange: { date_from: '-3d' } },
        { events: [{ id: '$pageview', order: 0 }], compare: true, date_from: '-3d' },
      ],
      [
        {
          kind: 'TrendsQuery',
          series: [
            { kind: 'EventsNode', event: '$pageview' },
            { kind: 'EventsNode', event: 'signed up' },
          ],
          trendsFilter: { formula: 'A + B' },
        },
        {
          events: [
            { id: '$pageview', order: 0 },
            { id: 'signed up', order: 1 },
          ],
          formula: 'A + B',
        },
      ],
    ];
    const shape = (item: Record<string, any>) => ({
      label: item.label,
      count: item.count,
      data: item.data,
      labels: item.labels,
      days: item.days,
      breakdown_value: item.breakdown_value,
      compare_label: item.compare_label,
      aggregated_value: item.aggregated_value,
    });
    for (const [query, legacy] of questions) {
      const viaQuery = await runQuery(server, { kind: 'InsightVizNode', source: query });
      assert.equal(viaQuery.status, 200, viaQuery.text);
      const viaLegacy = await server.bodyOf('POST', '/api/projects/1/insights/trend/', 200, { body: legacy });
      assert.deepEqual(viaQuery.body.results.map(shape), viaLegacy.result.map(shape), JSON.stringify(query));
      assert.ok(viaQuery.body.results.length > 0);
      assert.equal(viaQuery.body.hasMore, false);
      assert.match(viaQuery.body.resolved_date_range.date_from, /^\d{4}-\d{2}-\d{2}T00:00:00/);
    }
    const [first] = (await runQuery(server, questions[0]![0])).body.results;
    assert.deepEqual(first.data, [0, 0, 0, 1, 0, 1, 2, 0]);
    assert.equal(first.count, 4);
    assert.equal(first.action.order, 0);
  });
});
