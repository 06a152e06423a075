import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { actorQuery } from '../support/actors.js';
import { assertRefused, invalid, postQuery, queryResults, sendEvents, startInsightQueryServer, type InsightEvent } from '../support/insight-queries.js';
import { ERRORS, type TallyServer } from '../support/tally.js';

/**
 * LifecycleQuery on `POST /query/`, restating PostHog's lifecycle query runner tests
 * (posthog/hogql_queries/insights/lifecycle/test/test_lifecycle_query_runner.py) with their
 * numbers, each scenario in a project of its own; and the same questions through
 * `/insights/trend/` with `insight=LIFECYCLE`, which must give the same numbers. A person is
 * created by its first event, as PostHog's tests create each person at its first timestamp.
 *
 * `_create_test_events` ($pageview at 12:00 UTC):
 *   p1  01-11, 01-12, 01-13, 01-15, 01-17, 01-19  (email test@posthog.com)
 *   p2  01-09, 01-12
 *   p3  01-12
 *   p4  01-15
 */
type Data = Array<[string, string[]]>;

const MAIN: Data = [
  ['p1', ['2020-01-11T12:00:00Z', '2020-01-12T12:00:00Z', '2020-01-13T12:00:00Z', '2020-01-15T12:00:00Z', '2020-01-17T12:00:00Z', '2020-01-19T12:00:00Z']],
  ['p2', ['2020-01-09T12:00:00Z', '2020-01-12T12:00:00Z']],
  ['p3', ['2020-01-12T12:00:00Z']],
  ['p4', ['2020-01-15T12:00:00Z']],
];

const WEEKS: Data = [
  ['p1', ['2020-02-01T12:00:00Z', '2020-02-05T12:00:00Z', '2020-02-10T12:00:00Z', '2020-02-15T12:00:00Z', '2020-02-27T12:00:00Z', '2020-03-02T12:00:00Z']],
  ['p2', ['2020-02-11T12:00:00Z', '2020-02-18T12:00:00Z']],
  ['p3', ['2020-02-12T12:00:00Z']],
  ['p4', ['2020-02-27T12:00:00Z']],
];

const MONTHS: Data = [
  ['p1', ['2020-01-11T12:00:00Z', '2020-02-12T12:00:00Z', '2020-03-13T12:00:00Z', '2020-05-15T12:00:00Z', '2020-07-17T12:00:00Z', '2020-09-19T12:00:00Z']],
  ['p2', ['2019-12-09T12:00:00Z', '2020-02-12T12:00:00Z']],
  ['p3', ['2020-02-12T12:00:00Z']],
  ['p4', ['2020-05-15T12:00:00Z']],
];

/** Each person's events in time order, the first one setting its name (and p1's email). */
function personEvents(data: Data, event = '$pageview', properties: (id: string) => Record<string, unknown> = () => ({})): InsightEvent[] {
  return data.flatMap(([id, timestamps]) =>
    timestamps.map((timestamp, index) => ({
      event,
      distinct_id: id,
      timestamp,
      properties: { ...properties(id), ...(index === 0 ? { $set: { name: id, ...(id === 'p1' ? { email: 'test@posthog.com' } : {}) } } : {}) },
    })),
  );
}

const PAGEVIEW = { kind: 'EventsNode', event: '$pageview' };
const RANGE = { date_from: '2020-01-12T00:00:00Z', date_to: '2020-01-19T00:00:00Z' };
const MAIN_EXPECTED = {
  new: [1, 0, 0, 1, 0, 0, 0, 0],
  returning: [1, 1, 0, 0, 0, 0, 0, 0],
  resurrecting: [1, 0, 0, 1, 0, 1, 0, 1],
  dormant: [0, -2, -1, 0, -2, 0, -1, 0],
};
const P1_ONLY = {
  new: [0, 0, 0, 0, 0, 0, 0, 0],
  returning: [1, 1, 0, 0, 0, 0, 0, 0],
  resurrecting: [0, 0, 0, 1, 0, 1, 0, 1],
  dormant: [0, 0, -1, 0, -1, 0, -1, 0],
};

function lifecycle(fields: Record<string, unknown> = {}) {
  return { kind: 'LifecycleQuery', series: [PAGEVIEW], dateRange: RANGE, interval: 'day', ...fields };
}

/** `{status: data}`, asserting the statuses come in PostHog's order. */
function byStatus(results: Array<{ status: string; data: number[] }>): Record<string, number[]> {
  assert.deepEqual(
    results.map((item) => item.status),
    ['new', 'returning', 'resurrecting', 'dormant'],
  );
  return Object.fromEntries(results.map((item) => [item.status, item.data]));
}

describe('LifecycleQuery on /query/', () => {
  let server: TallyServer;
  let projects: Record<string, { id: number; api_token: string }>;
  let keys: Record<string, string>;
  let pageviewAction: number;
  let foreignAction: number;

  const results = (project: string, query: unknown) => queryResults(server, projects[project]!.id, query);

  before(async () => {
    ({ server, projects, keys } = await startInsightQueryServer(
      ['main', 'allEvents', 'number', 'distinctIds', 'weeksSunday', 'weeksMonday', 'months', 'pacific', 'foreign'],
      ['query:read', 'insight:read', 'person:read'],
      { pacific: 'US/Pacific' },
    ));
    await sendEvents(server, projects.main!.api_token, personEvents(MAIN));
    await sendEvents(server, projects.allEvents!.api_token, [...personEvents(MAIN.slice(0, 2)), ...personEvents(MAIN.slice(2), '$other')]);
    await sendEvents(
      server,
      projects.number!.api_token,
      personEvents(MAIN, '$pageview', (id) => (id === 'p1' ? { $number: 1 } : {})),
    );
    await sendEvents(server, projects.distinctIds!.api_token, [
      { event: '$pageview', distinct_id: 'p1', timestamp: '2020-01-12T12:00:00Z', properties: { $set: { name: 'p1' } } },
      { event: '$identify', distinct_id: 'p1', timestamp: '2020-01-12T12:00:01Z', properties: { $anon_distinct_id: 'another_p1' } },
      { event: '$pageview', distinct_id: 'another_p1', timestamp: '2020-01-14T12:00:00Z' },
      ...['2020-01-15T12:00:00Z', '2020-01-17T12:00:00Z', '2020-01-19T12:00:00Z'].map((timestamp) => ({ event: '$pageview', distinct_id: 'p1', timestamp })),
    ]);
    await sendEvents(server, projects.weeksSunday!.api_token, personEvents(WEEKS));
    await sendEvents(server, projects.weeksMonday!.api_token, personEvents(WEEKS));
    await sendEvents(server, projects.months!.api_token, personEvents(MONTHS));
    await sendEvents(
      server,
      projects.pacific!.api_token,
      personEvents([['p1', ['2020-01-11T23:00:00Z', '2020-01-12T01:00:00Z', ...MAIN[0]![1].slice(2)]], ...MAIN.slice(1)]),
    );
    await sendEvents(server, projects.foreign!.api_token, personEvents(MAIN));
    const patched = await server.patch(`/api/projects/${projects.weeksMonday!.id}/`, { week_start_day: 1 });
    assert.equal(patched.status, 200, patched.text);
    const action = async (project: string) => {
      const created = await server.post(`/api/projects/${projects[project]!.id}/actions/`, { name: '$pageview', steps: [{ event: '$pageview' }] });
      assert.equal(created.status, 201, created.text);
      return created.body.id as number;
    };
    pageviewAction = await action('main');
    foreignAction = await action('foreign');
  });
  after(() => server.dispose());

  test("test_lifecycle_query_whole_range: four items in PostHog's shape", async () => {
    const response = await postQuery(server, projects.main!.id, lifecycle({ dateRange: { date_from: '2020-01-09', date_to: '2020-01-19' } }));
    assert.equal(response.status, 200, response.text);
    const days = Array.from({ length: 11 }, (_, index) => `2020-01-${String(9 + index).padStart(2, '0')}`);
    const labels = Array.from({ length: 11 }, (_, index) => `${9 + index}-Jan-2020`);
    const item = (status: string, data: number[]) => ({
      action: { id: '$pageview', name: '$pageview', type: 'events', order: 0, math: 'total' },
      data,
      count: data.reduce((sum, value) => sum + value, 0),
      labels,
      days,
      label: `$pageview - ${status}`,
      status,
    });
    assert.deepEqual(response.body.results, [
      item('new', [1, 0, 1, 1, 0, 0, 1, 0, 0, 0, 0]),
      item('returning', [0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0]),
      item('resurrecting', [0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 1]),
      item('dormant', [0, -1, 0, 0, -2, -1, 0, -2, 0, -1, 0]),
    ]);
    assert.deepEqual(response.body.resolved_date_range, { date_from: '2020-01-09T00:00:00.000Z', date_to: '2020-01-19T23:59:59.999Z' });
  });

  test('test_lifecycle_trend', async () => {
    const result = await results('main', lifecycle());
    assert.equal(result[0].label, '$pageview - new');
    assert.deepEqual(byStatus(result), MAIN_EXPECTED);
  });

  test('test_lifecycle_trend_all_events', async () => {
    const result = await results('allEvents', lifecycle({ series: [{ kind: 'EventsNode', event: null }] }));
    assert.equal(result[0].label, 'All events - new');
    assert.deepEqual(result[0].action, { id: null, name: 'All events', type: 'events', order: 0, math: 'total' });
    assert.deepEqual(byStatus(result), MAIN_EXPECTED);
  });

  test('test_lifecycle_trend_prop_filtering: global and series event property filters', async () => {
    const number = [{ key: '$number', value: '1', operator: 'exact', type: 'event' }];
    assert.deepEqual(byStatus(await results('number', lifecycle({ properties: number }))), P1_ONLY);
    assert.deepEqual(byStatus(await results('number', lifecycle({ series: [{ ...PAGEVIEW, properties: number }] }))), P1_ONLY);
  });

  test('test_lifecycle_trend_person_prop_filtering', async () => {
    const named = [{ key: 'name', value: 'p1', operator: 'exact', type: 'person' }];
    assert.deepEqual(byStatus(await results('main', lifecycle({ series: [{ ...PAGEVIEW, properties: named }] }))), P1_ONLY);
  });

  test('test_lifecycle_trends_distinct_id_repeat: two distinct ids are one person', async () => {
    assert.deepEqual(byStatus(await results('distinctIds', lifecycle())), {
      new: [1, 0, 0, 0, 0, 0, 0, 0],
      returning: [0, 0, 0, 1, 0, 0, 0, 0],
      resurrecting: [0, 0, 1, 0, 0, 1, 0, 1],
      dormant: [0, -1, 0, 0, -1, 0, -1, 0],
    });
  });

  test('test_lifecycle_trend_action: an action series, with its id as text in action', async () => {
    const result = await results('main', lifecycle({ series: [{ kind: 'ActionsNode', id: pageviewAction, custom_name: 'Views' }] }));
    assert.deepEqual(byStatus(result), MAIN_EXPECTED);
    assert.deepEqual(result[0].action, { id: String(pageviewAction), name: '$pageview', type: 'actions', order: 0, math: 'total', custom_name: 'Views' });
    assert.equal(result[3].label, '$pageview - dormant');
  });

  test('test_lifecycle_trend_weeks_sunday and _monday', async () => {
    const weeks = lifecycle({ interval: 'week', dateRange: { date_from: '2020-02-05T00:00:00Z', date_to: '2020-03-09T00:00:00Z' } });
    const expected = {
      new: [0, 2, 0, 1, 0, 0],
      returning: [1, 1, 1, 0, 1, 0],
      resurrecting: [0, 0, 0, 1, 0, 0],
      dormant: [0, 0, -2, -1, -1, -1],
    };
    const sunday = await results('weeksSunday', weeks);
    assert.deepEqual(sunday[0].days, ['2020-02-02', '2020-02-09', '2020-02-16', '2020-02-23', '2020-03-01', '2020-03-08']);
    assert.deepEqual(byStatus(sunday), expected);
    const monday = await results('weeksMonday', weeks);
    assert.deepEqual(monday[0].days, ['2020-02-03', '2020-02-10', '2020-02-17', '2020-02-24', '2020-03-02', '2020-03-09']);
    assert.deepEqual(byStatus(monday), expected);
  });

  test('test_lifecycle_trend_months', async () => {
    const result = await results('months', lifecycle({ interval: 'month', dateRange: { date_from: '2020-02-01T00:00:00Z', date_to: '2020-09-01T00:00:00Z' } }));
    assert.deepEqual(byStatus(result), MAIN_EXPECTED);
  });

  test('test_filter_test_accounts: p1 (a posthog.com email) is left out', async () => {
    const patched = await server.patch(`/api/projects/${projects.main!.id}/`, {
      test_account_filters: [{ key: 'email', value: '@posthog.com', operator: 'not_icontains', type: 'person' }],
    });
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual(byStatus(await results('main', lifecycle({ filterTestAccounts: true }))), {
      new: [1, 0, 0, 1, 0, 0, 0, 0],
      returning: [0, 0, 0, 0, 0, 0, 0, 0],
      resurrecting: [1, 0, 0, 0, 0, 0, 0, 0],
      dormant: [0, -2, 0, 0, -1, 0, 0, 0],
    });
  });

  test("test_timezones: periods are the project's days", async () => {
    assert.deepEqual(byStatus(await results('pacific', lifecycle({ dateRange: { date_from: '2020-01-12', date_to: '2020-01-19' } }))), {
      new: [1, 0, 0, 1, 0, 0, 0, 0],
      returning: [0, 0, 0, 0, 0, 0, 0, 0],
      resurrecting: [1, 1, 0, 1, 0, 1, 0, 1],
      dormant: [-1, -2, -1, 0, -2, 0, -1, 0],
    });
  });

  test("test_cohort_filter: the counts of the cohort's persons", async () => {
    const cohort = await server.post(`/api/projects/${projects.main!.id}/cohorts/`, {
      name: 'Test accounts',
      filters: { properties: { type: 'AND', values: [{ key: 'email', value: ['test@posthog.com'], type: 'person', operator: 'exact' }] } },
    });
    assert.equal(cohort.status, 201, cohort.text);
    const result = await results('main', lifecycle({ properties: [{ key: 'id', type: 'cohort', value: cohort.body.id }] }));
    assert.deepEqual(
      result.map((item: any) => item.count),
      [0, 2, 3, -3],
    );
  });

  test('an InsightVizNode runs its source; environments and no trailing slash answer the same; lifecycleFilter only shows', async () => {
    const direct = await results('main', lifecycle());
    assert.deepEqual(
      await results('main', {
        kind: 'InsightVizNode',
        source: lifecycle({ lifecycleFilter: { toggledLifecycles: ['new'], showLegend: true, stacked: false } }),
      }),
      direct,
    );
    for (const url of [`/api/environments/${projects.main!.id}/query/`, `/api/projects/${projects.main!.id}/query`]) {
      const response = await server.post(url, { query: lifecycle() });
      assert.equal(response.status, 200, `${url}: ${response.text}`);
      assert.deepEqual(response.body.results, direct, url);
    }
  });

  test('scopes: query:read or insight:read; a key without them is refused', async () => {
    for (const scopes of ['query:read', 'insight:read'])
      assert.equal((await postQuery(server, projects.main!.id, lifecycle(), keys[scopes])).status, 200, scopes);
    const refused = await postQuery(server, projects.main!.id, lifecycle(), keys['person:read']);
    assert.equal(refused.status, 403);
    assert.deepEqual(refused.body, ERRORS.missingScope('query:read'));
  });

  test("another project's action is one this project does not have: a 400 naming the series", async () => {
    const response = await postQuery(server, projects.main!.id, lifecycle({ series: [{ kind: 'ActionsNode', id: foreignAction }] }));
    assert.equal(response.status, 400);
    assert.deepEqual(response.body, invalid('query.series.0.id', `Action ${foreignAction} does not exist.`));
  });

  test('what Tally cannot compute, or a malformed node, is a 400 naming the field', async () => {
    const main = projects.main!.id;
    await assertRefused(server, main, lifecycle({ series: [PAGEVIEW, PAGEVIEW] }), 'query.series', 'A LifecycleQuery takes exactly one series.');
    await assertRefused(
      server,
      main,
      { kind: 'InsightVizNode', source: lifecycle({ series: [] }) },
      'query.source.series',
      'A LifecycleQuery takes exactly one series.',
    );
    await assertRefused(server, main, lifecycle({ series: undefined }), 'query.series', 'A LifecycleQuery needs a list of series.');
    await assertRefused(server, main, lifecycle({ series: [{ kind: 'EventsNode', event: 7 }] }), 'query.series.0.event');
    await assertRefused(server, main, lifecycle({ interval: 'minute' }), 'query.interval');
    await assertRefused(server, main, lifecycle({ dateRange: { date_to: 'someday' } }), 'query.dateRange.date_to');
    await assertRefused(server, main, lifecycle({ samplingFactor: 0.1 }), 'query.samplingFactor');
    await assertRefused(
      server,
      main,
      lifecycle({ aggregation_group_type_index: 0 }),
      'query.aggregation_group_type_index',
      'Tally counts persons in a lifecycle insight.',
    );
    await assertRefused(server, main, lifecycle({ lifecycleFilter: 'new' }), 'query.lifecycleFilter');
    await assertRefused(
      server,
      main,
      lifecycle({ properties: [{ key: 'id', type: 'cohort', value: 999_999 }] }),
      'query.properties',
      'Cohort 999999 does not exist.',
    );
  });

  describe('the same numbers as /insights/trend/ with insight=LIFECYCLE', () => {
    const legacy = async (project: string, params: Record<string, unknown>) => {
      const response = await server.get(`/api/projects/${projects[project]!.id}/insights/trend/?${actorQuery({ insight: 'LIFECYCLE', ...params })}`);
      assert.equal(response.status, 200, response.text);
      return response.body.result as Array<Record<string, any>>;
    };
    const numbers = (items: Array<Record<string, any>>) =>
      items.map((item) => ({ status: item.status, data: item.data, count: item.count, days: item.days, labels: item.labels, label: item.label }));
    const PAGEVIEWS = [{ id: '$pageview', type: 'events', order: 0 }];
    const questions: Array<[string, string, Record<string, unknown>, Record<string, unknown>]> = [
      ['by day', 'main', { events: PAGEVIEWS, ...RANGE }, {}],
      ['all events', 'allEvents', { events: [{ id: null, type: 'events' }], ...RANGE }, { series: [{ kind: 'EventsNode' }] }],
      [
        'event property filters',
        'number',
        { events: PAGEVIEWS, ...RANGE, properties: [{ key: '$number', value: '1', type: 'event' }] },
        { properties: [{ key: '$number', value: '1', type: 'event' }] },
      ],
      [
        'by hour',
        'main',
        { events: PAGEVIEWS, interval: 'hour', date_from: '2020-01-12T00:00:00Z', date_to: '2020-01-12T23:00:00Z' },
        { interval: 'hour', dateRange: { date_from: '2020-01-12T00:00:00Z', date_to: '2020-01-12T23:00:00Z' } },
      ],
      [
        'by week',
        'weeksMonday',
        { events: PAGEVIEWS, interval: 'week', date_from: '2020-02-05', date_to: '2020-03-09' },
        { interval: 'week', dateRange: { date_from: '2020-02-05', date_to: '2020-03-09' } },
      ],
      [
        'by month',
        'months',
        { events: PAGEVIEWS, interval: 'month', date_from: '2020-02-01', date_to: '2020-09-01' },
        { interval: 'month', dateRange: { date_from: '2020-02-01', date_to: '2020-09-01' } },
      ],
      [
        'in another time zone',
        'pacific',
        { events: PAGEVIEWS, date_from: '2020-01-12', date_to: '2020-01-19' },
        { dateRange: { date_from: '2020-01-12', date_to: '2020-01-19' } },
      ],
      ['test accounts left out', 'main', { events: PAGEVIEWS, ...RANGE, filter_test_accounts: true }, { filterTestAccounts: true }],
    ];
    for (const [name, project, params, fields] of questions) {
      test(name, async () => {
        assert.deepEqual(numbers(await results(project, lifecycle(fields))), numbers(await legacy(project, params)));
      });
    }

    test('an action series', async () => {
      const expected = await legacy('main', { actions: [{ id: pageviewAction, type: 'actions', order: 0 }], ...RANGE });
      assert.deepEqual(numbers(await results('main', lifecycle({ series: [{ kind: 'ActionsNode', id: pageviewAction }] }))), numbers(expected));
    });
  });

  test("a saved insight holding a LifecycleQuery computes the query's results", async () => {
    const query = { kind: 'InsightVizNode', source: lifecycle() };
    const created = await server.post(`/api/projects/${projects.main!.id}/insights/`, { name: 'Lifecycle', query });
    assert.equal(created.status, 201, created.text);
    const computed = await server.get(`/api/projects/${projects.main!.id}/insights/${created.body.id}/?refresh=blocking`);
    assert.equal(computed.status, 200, computed.text);
    assert.deepEqual(computed.body.result, await results('main', query));
    assert.deepEqual(byStatus(computed.body.result), MAIN_EXPECTED);
  });
});
