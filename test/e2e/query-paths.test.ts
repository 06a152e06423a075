import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertRefused, postQuery, queryResults, sendEvents, startInsightQueryServer, type InsightEvent } from '../support/insight-queries.js';
import { ERRORS, type TallyServer } from '../support/tally.js';

/**
 * PathsQuery on `POST /query/`, restating PostHog's paths query runner tests
 * (posthog/hogql_queries/insights/paths/test/test_paths_query_runner.py) with their numbers,
 * each dataset in a project of its own; and the same questions through `/insights/path/`, which
 * must give the same edges. Events PostHog's tests create "now" are captured a second apart,
 * ending a minute ago, so they fall in the default range of the last 7 days.
 */

type Sighting = [distinctId: string, event: string, properties?: Record<string, unknown>, timestamp?: string];

const NOW = Date.now();

/** Events in order; those without a time are a second apart, ending a minute ago. */
function sightings(list: Sighting[]): InsightEvent[] {
  return list.map(([distinctId, event, properties, timestamp], index) => ({
    event,
    distinct_id: distinctId,
    timestamp: timestamp ?? new Date(NOW - 60_000 - (list.length - index) * 1000).toISOString(),
    properties: properties ?? {},
  }));
}

/** A person known by a second distinct id (and properties), made long before any dataset's events. */
function person(distinctId: string, alias: string | null, properties: Record<string, unknown> = {}): InsightEvent {
  return {
    event: alias ? '$create_alias' : '$set',
    distinct_id: distinctId,
    timestamp: '2000-01-01T00:00:00Z',
    properties: { ...(alias ? { alias } : {}), $set: properties },
  };
}

const url = (path: string) => ({ $current_url: path });

const DATASETS: Record<string, InsightEvent[]> = {
  currentUrl: [
    person('person_1', null, { email: 'test@posthog.com' }),
    person('person_2a', 'person_2b'),
    ...sightings([
      ['fake', '$pageview', url('/'), '2012-01-01T03:21:34Z'],
      ['fake', '$pageview', url('/about'), '2012-01-01T03:21:34Z'],
      ['person_1', '$pageview', url('/'), '2012-01-14T03:21:34Z'],
      ['person_1', '$pageview', url('/about'), '2012-01-14T03:28:34Z'],
      ['person_2a', '$pageview', url('/'), '2012-01-14T03:21:34Z'],
      ['person_2b', '$pageview', url('/pricing'), '2012-01-14T03:28:34Z'],
      ['person_2a', '$pageview', url('/about'), '2012-01-14T03:29:34Z'],
      ['person_3', '$pageview', url('/pricing'), '2012-01-14T03:21:34Z'],
      ['person_3', '$pageview', url('/'), '2012-01-14T03:28:34Z'],
      ['person_4', '$pageview', url('/'), '2012-01-14T03:21:34Z'],
      ['person_4', '$pageview', url('/pricing'), '2012-01-14T03:28:34Z'],
    ]),
  ],
  customEvents: sightings([
    ['person_1', 'custom_event_1'],
    ['person_1', 'custom_event_3'],
    ['person_1', '$pageview', url('/')],
    ['person_2', 'custom_event_1'],
    ['person_2', 'custom_event_2'],
    ['person_2', 'custom_event_3'],
    ['person_3', 'custom_event_2'],
    ['person_3', 'custom_event_1'],
    ['person_4', 'custom_event_1'],
    ['person_4', 'custom_event_2'],
  ]),
  screens: [
    person('person_2a', 'person_2b'),
    ...sightings([
      ['person_1', '$screen', { $screen_name: '/' }],
      ['person_1', '$screen', { $screen_name: '/about' }],
      ['person_2b', '$screen', { $screen_name: '/' }],
      ['person_2a', '$screen', { $screen_name: '/pricing' }],
      ['person_2b', '$screen', { $screen_name: '/about' }],
      ['person_3', '$screen', { $screen_name: '/pricing' }],
      ['person_3', '$screen', { $screen_name: '/' }],
      ['person_4', '$screen', { $screen_name: '/' }],
      ['person_4', '$screen', { $screen_name: '/pricing' }],
    ]),
  ],
  properties: sightings([
    ['person_1', '$pageview', { ...url('/'), $browser: 'Chrome' }],
    ['person_1', '$pageview', { ...url('/about'), $browser: 'Chrome' }],
    ['person_2', '$pageview', { ...url('/'), $browser: 'Chrome' }],
    ['person_2', '$pageview', { ...url('/pricing'), $browser: 'Chrome' }],
    ['person_2', '$pageview', { ...url('/about'), $browser: 'Chrome' }],
    ['person_3', '$pageview', url('/pricing')],
    ['person_3', '$pageview', url('/')],
    ['person_4', '$pageview', url('/')],
    ['person_4', '$pageview', url('/pricing')],
  ]),
  start: [
    person('person_5a', 'person_5b'),
    ...sightings([
      ['person_1', '$pageview', url('/')],
      ['person_1', '$pageview', url('/about/')],
      ['person_2', '$pageview', url('/')],
      ['person_2', '$pageview', url('/pricing/')],
      ['person_2', '$pageview', url('/about')],
      ['person_3', '$pageview', url('/pricing')],
      ['person_3', '$pageview', url('/')],
      ['person_3', '$pageview', url('/about/')],
      ['person_4', '$pageview', url('/')],
      ['person_4', '$pageview', url('/pricing/')],
      ['person_5a', '$pageview', url('/pricing')],
      ['person_5b', '$pageview', url('/about')],
      ['person_5a', '$pageview', url('/pricing/')],
      ['person_5b', '$pageview', url('/help')],
    ]),
  ],
  funnel: sightings([
    ['f1', 'step one', {}, '2021-05-01T10:00:00Z'],
    ['f1', 'browse', {}, '2021-05-01T10:01:00Z'],
    ['f1', 'step two', {}, '2021-05-01T10:02:00Z'],
    ['f1', 'after', {}, '2021-05-01T10:03:00Z'],
    ['f2', 'step one', {}, '2021-05-01T11:00:00Z'],
    ['f2', 'browse', {}, '2021-05-01T11:05:00Z'],
    ['f2', 'search', {}, '2021-05-01T11:06:00Z'],
    ['f3', 'step one', {}, '2021-05-02T10:00:00Z'],
    ['f3', 'search', {}, '2021-05-02T10:01:00Z'],
    ['f3', 'step two', {}, '2021-05-02T10:04:00Z'],
    ['f4', 'browse', {}, '2021-05-02T12:00:00Z'],
    ['f4', 'step two', {}, '2021-05-02T12:01:00Z'],
  ]),
};

const edge = (source: string, target: string, value: number, averageConversionTime: number) => ({
  source,
  target,
  value,
  average_conversion_time: averageConversionTime,
});
const edges = (links: Array<{ source: string; target: string; value: number }>) => links.map((link) => [link.source, link.target, link.value]);

function paths(pathsFilter: Record<string, unknown> = {}, fields: Record<string, unknown> = {}) {
  return { kind: 'PathsQuery', pathsFilter, ...fields };
}

const FUNNEL_WEEK = { date_from: '2021-05-01', date_to: '2021-05-07' };
const FUNNEL_SOURCE = {
  kind: 'FunnelsQuery',
  series: [
    { kind: 'EventsNode', event: 'step one' },
    { kind: 'EventsNode', event: 'step two' },
  ],
  dateRange: FUNNEL_WEEK,
  funnelsFilter: { funnelWindowInterval: 7, funnelWindowIntervalUnit: 'day' },
};
const LEGACY_FUNNEL = {
  insight: 'FUNNELS',
  ...FUNNEL_WEEK,
  funnel_window_interval: 7,
  funnel_window_interval_unit: 'day',
  events: [
    { id: 'step one', order: 0 },
    { id: 'step two', order: 1 },
  ],
};

describe('PathsQuery on /query/', () => {
  let server: TallyServer;
  let projects: Record<string, { id: number; api_token: string }>;
  let keys: Record<string, string>;

  const results = (project: string, query: unknown) => queryResults(server, projects[project]!.id, query);

  before(async () => {
    ({ server, projects, keys } = await startInsightQueryServer([...Object.keys(DATASETS), 'empty'], ['query:read', 'insight:read', 'person:read']));
    for (const [name, batch] of Object.entries(DATASETS)) await sendEvents(server, projects[name]!.api_token, batch);
    const patched = await server.patch(`/api/projects/${projects.currentUrl!.id}/`, {
      test_account_filters: [{ key: 'email', value: '@posthog.com', operator: 'not_icontains', type: 'person' }],
    });
    assert.equal(patched.status, 200, patched.text);
  });
  after(() => server.dispose());

  test('test_current_url_paths_and_logic: the edges as PathsLink, heaviest first; the date range and test accounts', async () => {
    const week = { date_from: '2012-01-08', date_to: '2012-01-15' };
    const response = await postQuery(server, projects.currentUrl!.id, paths({}, { dateRange: week }));
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.body.results, [
      edge('1_/', '2_/pricing', 2, 420_000),
      edge('1_/', '2_/about', 1, 420_000),
      edge('1_/pricing', '2_/', 1, 420_000),
      edge('2_/pricing', '3_/about', 1, 60_000),
    ]);
    assert.deepEqual(response.body.resolved_date_range, { date_from: '2012-01-08T00:00:00.000Z', date_to: '2012-01-15T23:59:59.999Z' });
    assert.equal((await results('currentUrl', paths({}, { dateRange: { date_from: '2012-01-08' } }))).length, 4);
    assert.equal((await results('currentUrl', paths({}, { dateRange: { date_from: '2012-01-22' } }))).length, 0);
    assert.equal((await results('currentUrl', paths({}, { dateRange: { date_from: '2012-01-08', date_to: '2012-01-08' } }))).length, 0);
    assert.equal((await results('currentUrl', paths({}, { dateRange: { date_from: '2012-01-08', date_to: '2012-01-22' } }))).length, 4);
    assert.equal(
      (await results('currentUrl', paths({}, { dateRange: { date_from: '2012-01-08', date_to: '2012-01-22' }, filterTestAccounts: true }))).length,
      3,
    );
    assert.equal((await results('currentUrl', paths({}, { dateRange: { date_from: '2012-01-22', date_to: '2012-01-08' } }))).length, 0);
  });

  test('test_custom_event_paths', async () => {
    assert.deepEqual(edges(await results('customEvents', paths({ includeEventTypes: ['custom_event'] }))), [
      ['1_custom_event_1', '2_custom_event_2', 2],
      ['1_custom_event_1', '2_custom_event_3', 1],
      ['1_custom_event_2', '2_custom_event_1', 1],
      ['2_custom_event_2', '3_custom_event_3', 1],
    ]);
  });

  test('test_screen_paths', async () => {
    assert.deepEqual(edges(await results('screens', paths({ includeEventTypes: ['$screen'] }))), [
      ['1_/', '2_/pricing', 2],
      ['1_/', '2_/about', 1],
      ['1_/pricing', '2_/', 1],
      ['2_/pricing', '3_/about', 1],
    ]);
  });

  test('test_paths_properties_filter', async () => {
    const properties = { type: 'AND', values: [{ type: 'AND', values: [{ key: '$browser', operator: 'exact', type: 'event', value: ['Chrome'] }] }] };
    assert.deepEqual(edges(await results('properties', paths({}, { properties }))), [
      ['1_/', '2_/about', 1],
      ['1_/', '2_/pricing', 1],
      ['2_/pricing', '3_/about', 1],
    ]);
  });

  test('test_paths_start: from a start point, a trailing slash making no difference', async () => {
    const fromPricing = [
      ['1_/pricing', '2_/about', 2],
      ['1_/pricing', '2_/', 1],
      ['2_/', '3_/about', 1],
      ['2_/about', '3_/pricing', 1],
      ['3_/pricing', '4_/help', 1],
    ];
    assert.deepEqual(edges(await results('start', paths({ startPoint: '/pricing' }))), fromPricing);
    assert.deepEqual(edges(await results('start', paths({ startPoint: '/pricing/' }))), fromPricing);
    assert.deepEqual(edges(await results('start', paths({ startPoint: '/' }))), [
      ['1_/', '2_/about', 2],
      ['1_/', '2_/pricing', 2],
      ['2_/pricing', '3_/about', 1],
    ]);
  });

  test("funnelPathsFilter: the paths of a FunnelsQuery's persons after a step", async () => {
    const after = await results(
      'funnel',
      paths({}, { dateRange: FUNNEL_WEEK, funnelPathsFilter: { funnelPathType: 'funnel_path_after_step', funnelSource: FUNNEL_SOURCE, funnelStep: 2 } }),
    );
    assert.deepEqual(edges(after), [['1_step two', '2_after', 1]]);
    const dropped = await results(
      'funnel',
      paths({}, { dateRange: FUNNEL_WEEK, funnelPathsFilter: { funnelPathType: 'funnel_path_after_step', funnelSource: FUNNEL_SOURCE, funnelStep: -2 } }),
    );
    assert.deepEqual(edges(dropped), [
      ['1_step one', '2_browse', 1],
      ['2_browse', '3_search', 1],
    ]);
  });

  test('an InsightVizNode runs its source; environments and no trailing slash answer the same; display-only fields change nothing', async () => {
    const query = paths({ includeEventTypes: ['custom_event'] });
    const direct = await results('customEvents', query);
    assert.deepEqual(
      await results('customEvents', { kind: 'InsightVizNode', source: paths({ includeEventTypes: ['custom_event'] }, { modifiers: {}, tags: {} }) }),
      direct,
    );
    for (const path of [`/api/environments/${projects.customEvents!.id}/query/`, `/api/projects/${projects.customEvents!.id}/query`]) {
      const response = await server.post(path, { query });
      assert.equal(response.status, 200, `${path}: ${response.text}`);
      assert.deepEqual(response.body.results, direct, path);
    }
  });

  test('scopes: query:read or insight:read; a key without them is refused', async () => {
    for (const scopes of ['query:read', 'insight:read'])
      assert.equal((await postQuery(server, projects.customEvents!.id, paths(), keys[scopes])).status, 200, scopes);
    const refused = await postQuery(server, projects.customEvents!.id, paths(), keys['person:read']);
    assert.equal(refused.status, 403);
    assert.deepEqual(refused.body, ERRORS.missingScope('query:read'));
  });

  test("another project's events are never followed", async () => {
    assert.deepEqual(await results('empty', paths({ includeEventTypes: ['custom_event'] })), []);
  });

  test('what Tally cannot compute, or a malformed node, is a 400 naming the field', async () => {
    const id = projects.customEvents!.id;
    await assertRefused(server, id, { kind: 'PathsQuery' }, 'query.pathsFilter', 'This field is required.');
    await assertRefused(
      server,
      id,
      { kind: 'InsightVizNode', source: paths({ includeEventTypes: ['hogql'], pathsHogQLExpression: 'event' }) },
      'query.source.pathsFilter.includeEventTypes.0',
    );
    await assertRefused(server, id, paths({ pathsHogQLExpression: 'event || properties.a' }), 'query.pathsFilter.pathsHogQLExpression');
    await assertRefused(server, id, paths({ includeEventTypes: ['$autocapture'] }), 'query.pathsFilter.includeEventTypes.0');
    await assertRefused(server, id, paths({ includeEventTypes: '$pageview' }), 'query.pathsFilter.includeEventTypes');
    await assertRefused(server, id, paths({ stepLimit: 0 }), 'query.pathsFilter.stepLimit');
    await assertRefused(server, id, paths({ stepLimit: 101 }), 'query.pathsFilter.stepLimit');
    await assertRefused(server, id, paths({ edgeLimit: 'many' }), 'query.pathsFilter.edgeLimit');
    await assertRefused(
      server,
      id,
      paths({ minEdgeWeight: 5, maxEdgeWeight: 2 }),
      'query.pathsFilter.maxEdgeWeight',
      "Max edge weight can't be lower than min edge weight.",
    );
    await assertRefused(server, id, paths({ excludeEvents: [1] }), 'query.pathsFilter.excludeEvents.0');
    await assertRefused(server, id, paths({ localPathCleaningFilters: [{ regex: '(', alias: 'x' }] }), 'query.pathsFilter.localPathCleaningFilters');
    await assertRefused(server, id, paths({ pathStartKey: 'home' }), 'query.pathsFilter.pathStartKey');
    await assertRefused(
      server,
      id,
      paths({}, { funnelPathsFilter: { funnelPathType: 'sideways', funnelSource: FUNNEL_SOURCE, funnelStep: 1 } }),
      'query.funnelPathsFilter.funnelPathType',
    );
    await assertRefused(
      server,
      id,
      paths({}, { funnelPathsFilter: { funnelPathType: 'funnel_path_after_step', funnelStep: 1 } }),
      'query.funnelPathsFilter.funnelSource',
    );
    await assertRefused(
      server,
      id,
      paths(
        {},
        {
          funnelPathsFilter: { funnelPathType: 'funnel_path_after_step', funnelSource: { ...FUNNEL_SOURCE, series: [FUNNEL_SOURCE.series[0]] }, funnelStep: 1 },
        },
      ),
      'query.funnelPathsFilter.funnelSource.series',
    );
    await assertRefused(
      server,
      id,
      paths({}, { funnelPathsFilter: { funnelPathType: 'funnel_path_after_step', funnelSource: FUNNEL_SOURCE } }),
      'query.funnelPathsFilter.funnelStep',
    );
    await assertRefused(
      server,
      id,
      paths({}, { funnelPathsFilter: { funnelPathType: 'funnel_path_after_step', funnelSource: FUNNEL_SOURCE, funnelStep: 5 } }),
      'query.funnelPathsFilter.funnelStep',
    );
    await assertRefused(server, id, paths({}, { dateRange: { date_from: 'long ago' } }), 'query.dateRange.date_from');
    await assertRefused(server, id, paths({}, { samplingFactor: 0.1 }), 'query.samplingFactor');
    await assertRefused(server, id, paths({}, { aggregation_group_type_index: 0 }), 'query.aggregation_group_type_index');
    await assertRefused(
      server,
      id,
      paths({}, { properties: [{ key: 'id', type: 'cohort', value: 999_999 }] }),
      'query.properties',
      'Cohort 999999 does not exist.',
    );
  });

  describe('the same edges as /insights/path/', () => {
    const legacy = async (project: string, body: Record<string, unknown>) => {
      const response = await server.post(`/api/projects/${projects[project]!.id}/insights/path/`, body);
      assert.equal(response.status, 200, response.text);
      return response.body.result as unknown[];
    };
    const week = { date_from: '2012-01-08', date_to: '2012-01-15' };
    const questions: Array<[string, string, Record<string, unknown>, Record<string, unknown>]> = [
      ['every event', 'currentUrl', { ...week }, paths({}, { dateRange: week })],
      [
        'pageviews, test accounts left out',
        'currentUrl',
        { ...week, include_event_types: ['$pageview'], filter_test_accounts: true },
        paths({ includeEventTypes: ['$pageview'] }, { dateRange: week, filterTestAccounts: true }),
      ],
      [
        'custom events, one excluded',
        'customEvents',
        { include_event_types: ['custom_event'], exclude_events: ['custom_event_3'] },
        paths({ includeEventTypes: ['custom_event'], excludeEvents: ['custom_event_3'] }),
      ],
      ['screens and pageviews', 'screens', { include_event_types: ['$screen', '$pageview'] }, paths({ includeEventTypes: ['$screen', '$pageview'] })],
      ['a start point and a step limit', 'start', { start_point: '/pricing', step_limit: 3 }, paths({ startPoint: '/pricing', stepLimit: 3 })],
      ['an end point', 'start', { end_point: '/about' }, paths({ endPoint: '/about' })],
      ['start and end points', 'start', { start_point: '/', end_point: '/about' }, paths({ startPoint: '/', endPoint: '/about' })],
      [
        'groupings and cleaning rules',
        'start',
        { path_groupings: ['/pri*'], local_path_cleaning_filters: [{ regex: '/about/?', alias: '/info' }] },
        paths({ pathGroupings: ['/pri*'], localPathCleaningFilters: [{ regex: '/about/?', alias: '/info' }] }),
      ],
      ['edge weights and limits', 'start', { min_edge_weight: 2, edge_limit: 3 }, paths({ minEdgeWeight: 2, edgeLimit: 3 })],
      [
        'property filters',
        'properties',
        { properties: [{ key: '$browser', value: 'Chrome', type: 'event' }] },
        paths({}, { properties: [{ key: '$browser', value: 'Chrome', type: 'event' }] }),
      ],
      [
        'paths before a funnel step',
        'funnel',
        { ...FUNNEL_WEEK, funnel_paths: 'funnel_path_before_step', funnel_filter: { ...LEGACY_FUNNEL, funnel_step: 2 } },
        paths({}, { dateRange: FUNNEL_WEEK, funnelPathsFilter: { funnelPathType: 'funnel_path_before_step', funnelSource: FUNNEL_SOURCE, funnelStep: 2 } }),
      ],
      [
        'paths between funnel steps',
        'funnel',
        { ...FUNNEL_WEEK, funnel_paths: 'funnel_path_between_steps', funnel_filter: { ...LEGACY_FUNNEL, funnel_step: 2 } },
        paths({}, { dateRange: FUNNEL_WEEK, funnelPathsFilter: { funnelPathType: 'funnel_path_between_steps', funnelSource: FUNNEL_SOURCE, funnelStep: 2 } }),
      ],
      [
        'paths after a funnel drop-off',
        'funnel',
        { ...FUNNEL_WEEK, funnel_paths: 'funnel_path_after_step', funnel_filter: { ...LEGACY_FUNNEL, funnel_step: -2 } },
        paths({}, { dateRange: FUNNEL_WEEK, funnelPathsFilter: { funnelPathType: 'funnel_path_after_step', funnelSource: FUNNEL_SOURCE, funnelStep: -2 } }),
      ],
    ];
    for (const [name, project, body, query] of questions) {
      test(name, async () => {
        const expected = await legacy(project, body);
        assert.notDeepEqual(expected, [], 'the question has an answer');
        assert.deepEqual(await results(project, query), expected);
      });
    }
  });

  test("a saved insight holding a PathsQuery computes the query's results", async () => {
    const query = { kind: 'InsightVizNode', source: paths({ includeEventTypes: ['custom_event'] }) };
    const created = await server.post(`/api/projects/${projects.customEvents!.id}/insights/`, { name: 'Paths', query });
    assert.equal(created.status, 201, created.text);
    const computed = await server.get(`/api/projects/${projects.customEvents!.id}/insights/${created.body.id}/?refresh=blocking`);
    assert.equal(computed.status, 200, computed.text);
    assert.deepEqual(computed.body.result, await results('customEvents', query));
    assert.equal(computed.body.result.length, 4);
  });
});
