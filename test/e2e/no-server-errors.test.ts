import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { sendBatch } from '../support/capture.js';
import { TallyServer } from '../support/tally.js';

/** Query parameter names the API reads somewhere, so random requests reach real code paths. */
const PARAMETER_NAMES = [
  'date_from',
  'date_to',
  'interval',
  'events',
  'actions',
  'properties',
  'breakdown',
  'breakdown_type',
  'breakdown_value',
  'display',
  'formula',
  'compare',
  'limit',
  'offset',
  'search',
  'distinct_id',
  'email',
  'format',
  'key',
  'value',
  'person_id',
  'event_type',
  'ordering',
  'names',
  'excluded_properties',
  'type',
  'group_type_index',
  'event_names',
  'is_numerical',
  'page',
  'smoothing_intervals',
  'math',
  'entity_id',
  'entity_type',
  'entity_math',
  'funnel_step',
  'period',
  'lifecycle_type',
  'target_date',
  'selected_interval',
  'funnel_window_days',
  'main_distinct_id',
  'distinct_ids_to_split',
  '$unset',
  'delete_events',
  'filter_test_accounts',
  'cohort',
  'insight',
  'shown_as',
  'filter_by_event_names',
  'date_to_delta',
  'retention_type',
  'target_entity',
  'returning_entity',
  'total_intervals',
  'funnel_order_type',
  'funnel_viz_type',
  'start_point',
  'end_point',
  'path_type',
  'include_event_types',
  'status',
];

const TRICKY_VALUES = [
  '',
  'null',
  '[]',
  '{}',
  '-1',
  '0',
  '99999999999999999999',
  'all',
  '-7d',
  'mStart',
  '2024-02-30',
  'day',
  'week',
  '[{"key":"x"}]',
  '[{"key":"$browser","value":"Chrome","type":"event"}]',
  '{"type":"AND","values":[1]}',
  '[{"id":"$pageview"}]',
  '[{"id":"$pageview","math":"sum"}]',
  '[{"id":1,"type":"actions"}]',
  'true',
  'csv',
  'ÿ',
  '%00',
  '$pageview',
  'A/0',
  '[{"key":"id","type":"cohort","value":999}]',
];

const value = fc.oneof(
  fc.constantFrom(...TRICKY_VALUES),
  fc.string({ maxLength: 12 }),
  fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v)),
);
const query = fc.dictionary(fc.constantFrom(...PARAMETER_NAMES), value, { maxKeys: 4 });
const body = fc.oneof(
  fc.dictionary(
    fc.constantFrom(
      ...PARAMETER_NAMES,
      'name',
      'steps',
      'filters',
      'groups',
      'is_static',
      'deleted',
      'tags',
      'verified',
      'hidden',
      'description',
      'person_ids',
    ),
    fc.jsonValue({ maxDepth: 3 }),
    { maxKeys: 4 },
  ),
  fc.jsonValue({ maxDepth: 2 }),
);

/** Every route of the OpenAPI document, hit with random parameters and bodies: never a 5xx. */
describe('no request answers 5xx', () => {
  let server: TallyServer;
  let routes: { method: string; path: string }[];
  let identifiers: string[];

  before(async () => {
    server = await TallyServer.start();
    await sendBatch(server, [
      { event: '$pageview', distinct_id: 'sweep-1', properties: { $browser: 'Chrome', $set: { email: 'sweep@x.io' } } },
      { event: '$identify', distinct_id: 'sweep-2', properties: { $anon_distinct_id: 'sweep-1' } },
      { event: 'order placed', distinct_id: 'sweep-2', properties: { amount: 3, $groups: { company: 'acme' } } },
    ]);
    const persons = await server.get('/api/projects/1/persons/');
    const definitions = await server.get('/api/projects/1/event_definitions/');
    identifiers = [
      String(persons.body.results[0].id),
      persons.body.results[0].uuid,
      definitions.body.results[0].id,
      '1',
      '0',
      'abc',
      '00000000-0000-0000-0000-000000000000',
      '99999999999999999999',
    ];
    const schema = await server.get('/api/schema/', { key: null });
    routes = Object.entries(schema.body.paths as Record<string, Record<string, unknown>>).flatMap(([path, methods]) =>
      Object.keys(methods)
        .filter((method) => method !== 'delete')
        .map((method) => ({ method: method.toUpperCase(), path })),
    );
  });
  after(() => server.dispose());

  test('integers beyond 2^53 in limit, offset and page are past the end of a list, never a 5xx', async () => {
    const huge = '99999999999999999999';
    for (const route of routes) {
      const path = route.path.replace('{project_id}', '1').replace('{id}', '1');
      for (const search of [`offset=${huge}`, `limit=${huge}`, `page=${huge}`]) {
        const response = await server.request(route.method, `${path}?${search}`, { body: route.method === 'GET' ? undefined : {} });
        assert.ok(response.status < 500, `${route.method} ${path}?${search} → ${response.status} ${response.text.slice(0, 300)}`);
      }
    }
    const persons = await server.get(`/api/projects/1/persons/?offset=${huge}`);
    assert.equal(persons.status, 200);
    assert.deepEqual(persons.body.results, []);
  });

  test('objects carrying their own toString or valueOf key, wherever a body may hold one, are never a 5xx', async () => {
    const own = { toString: [], valueOf: 1 };
    const bodies = [
      { display: own, interval: own, breakdown: own, start_point: own, path_type: own, limit: own, offset: own, date_to: own },
      { events: [{ id: own, math: own }], properties: [{ key: own, value: own, operator: own }], insight: 'TRENDS' },
      { funnel_window_interval_unit: own, retention_type: own, target_entity: own, returning_entity: own, name: [own] },
    ];
    for (const route of routes.filter((candidate) => candidate.method !== 'GET')) {
      const path = route.path.replace('{project_id}', '1').replace('{id}', '1');
      for (const body of bodies) {
        const response = await server.request(route.method, path, { body });
        assert.ok(response.status < 500, `${route.method} ${path} ${JSON.stringify(body)} → ${response.status} ${response.text.slice(0, 300)}`);
      }
    }
  });

  test('random parameters and bodies on every route', async () => {
    assert.ok(routes.length > 20);
    for (const route of routes) {
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...identifiers), query, body, async (id, parameters, payload) => {
          const path = route.path.replace('{project_id}', '1').replace('{id}', encodeURIComponent(id));
          const search = new URLSearchParams(parameters as Record<string, string>).toString();
          const response = await server.request(route.method, `${path}${search ? `?${search}` : ''}`, {
            body: route.method === 'GET' ? undefined : payload,
          });
          assert.ok(response.status < 500, `${route.method} ${path}?${search} ${JSON.stringify(payload)} → ${response.status} ${response.text.slice(0, 300)}`);
        }),
        { numRuns: Number(process.env.SWEEP_RUNS ?? 40) },
      );
    }
  });
});
