import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { actorQuery } from '../support/actors.js';
import { assertRefused, invalid, postQuery, queryResults, sendEvents, startInsightQueryServer, type InsightEvent } from '../support/insight-queries.js';
import { ERRORS, type TallyServer } from '../support/tally.js';

/**
 * StickinessQuery on `POST /query/`, restating PostHog's stickiness query runner tests
 * (posthog/hogql_queries/insights/stickiness/test/test_stickiness_query_runner.py) with their
 * numbers, each scenario in a project of its own; and the same questions through
 * `/insights/trend/` with `insight=STICKINESS`, which must give the same numbers.
 *
 * `_create_test_events`, at 12:00 UTC each day:
 *   p1  $pageview and $pageleave on 11 … 19 Jan 2020   (Chrome, email test@posthog.com)
 *   p2  $pageview and $pageleave on 11, 13, 15, 17, 19  (Firefox)
 */

function days(distinctId: string, event: string, dates: number[], properties: Record<string, unknown> = {}, hour = 12): InsightEvent[] {
  return dates.map((day) => ({
    event,
    distinct_id: distinctId,
    timestamp: `2020-01-${String(day).padStart(2, '0')}T${String(hour).padStart(2, '0')}:00:00Z`,
    properties,
  }));
}

function at(distinctId: string, timestamps: string[], properties: Record<string, unknown> = {}): InsightEvent[] {
  return timestamps.map((timestamp) => ({ event: '$pageview', distinct_id: distinctId, timestamp, properties }));
}

const P1 = { $browser: 'Chrome', prop: 10, bool_field: true };
const P2 = { $browser: 'Firefox', prop: 10, bool_field: false };
const TEST_EVENTS: InsightEvent[] = [
  ...days('p1', '$pageview', [11, 12, 13, 14, 15, 16, 17, 18, 19], { ...P1, $set: { name: 'p1', email: 'test@posthog.com' } }),
  ...days('p1', '$pageleave', [11, 12, 13, 14, 15, 16, 17, 18, 19], P1),
  ...days('p2', '$pageview', [11, 13, 15, 17, 19], { ...P2, $set: { name: 'p2' } }),
  ...days('p2', '$pageleave', [11, 13, 15, 17, 19], P2),
];

const THREE_DAYS: InsightEvent[] = [...days('p1', '$pageview', [11, 12, 13]), ...days('p2', '$pageview', [11, 12]), ...days('p3', '$pageview', [11])];

const PAGEVIEW = { kind: 'EventsNode', event: '$pageview' };
const DEFAULT_RANGE = { date_from: '2020-01-11', date_to: '2020-01-20' };
const TEN_DAYS = ['1 day', '2 days', '3 days', '4 days', '5 days', '6 days', '7 days', '8 days', '9 days', '10 days'];
const ONLY_P1 = [0, 0, 0, 0, 0, 0, 0, 0, 1, 0];

/** PostHog's `_get_query`: $pageview over 11–20 Jan 2020 by day, unless the test says otherwise. */
function stickiness(fields: Record<string, unknown> = {}) {
  return { kind: 'StickinessQuery', series: [PAGEVIEW], dateRange: DEFAULT_RANGE, interval: 'day', ...fields };
}

describe('StickinessQuery on /query/', () => {
  let server: TallyServer;
  let projects: Record<string, { id: number; api_token: string }>;
  let keys: Record<string, string>;
  let chromeAction: number;
  let foreignAction: number;

  const results = (project: string, query: unknown) => queryResults(server, projects[project]!.id, query);

  before(async () => {
    ({ server, projects, keys } = await startInsightQueryServer(
      ['main', 'testAccounts', 'criteria', 'cumulative', 'cumulativeHours', 'cumulativeFilter', 'cumulativeCriteria', 'empty', 'foreign'],
      ['query:read', 'insight:read', 'person:read'],
    ));
    await sendEvents(server, projects.main!.api_token, TEST_EVENTS);
    await sendEvents(server, projects.testAccounts!.api_token, TEST_EVENTS);
    await sendEvents(server, projects.criteria!.api_token, [
      ...at('p1', [
        '2020-01-11T12:00:00Z',
        '2020-01-11T12:00:00Z',
        '2020-01-13T12:00:00Z',
        '2020-01-13T12:00:00Z',
        '2020-01-15T12:00:00Z',
        '2020-01-15T12:00:00Z',
        '2020-01-17T12:00:00Z',
        '2020-01-17T12:00:00Z',
        '2020-01-17T12:00:00Z',
        '2020-01-19T12:00:00Z',
      ]),
      ...at('p2', ['2020-01-12T12:00:00Z', '2020-01-12T12:00:00Z', '2020-01-13T12:00:00Z', '2020-01-13T12:00:00Z', '2020-01-19T12:00:00Z']),
    ]);
    await sendEvents(server, projects.cumulative!.api_token, THREE_DAYS);
    await sendEvents(server, projects.cumulativeHours!.api_token, [
      ...at('p1', ['2020-01-11T12:00:00Z', '2020-01-11T13:00:00Z', '2020-01-11T14:00:00Z']),
      ...at('p2', ['2020-01-11T12:00:00Z', '2020-01-11T13:00:00Z']),
    ]);
    await sendEvents(server, projects.cumulativeFilter!.api_token, [
      ...days('p1', '$pageview', [11, 12, 13], { browser: 'Chrome' }),
      ...days('p2', '$pageview', [11, 12], { browser: 'Safari' }),
    ]);
    await sendEvents(server, projects.cumulativeCriteria!.api_token, [
      ...at('p1', ['2020-01-11T12:00:00Z', '2020-01-11T12:00:00Z', '2020-01-12T12:00:00Z', '2020-01-12T12:00:00Z', '2020-01-13T12:00:00Z']),
      ...at('p2', ['2020-01-11T12:00:00Z', '2020-01-11T12:00:00Z', '2020-01-12T12:00:00Z']),
      ...at('p3', ['2020-01-11T12:00:00Z']),
    ]);
    await sendEvents(server, projects.foreign!.api_token, TEST_EVENTS);
    const action = async (project: string) => {
      const created = await server.post(`/api/projects/${projects[project]!.id}/actions/`, {
        name: 'My Action',
        steps: [{ event: '$pageview', properties: [{ key: '$browser', type: 'event', value: 'Chrome', operator: 'exact' }] }],
      });
      assert.equal(created.status, 201, created.text);
      return created.body.id as number;
    };
    chromeAction = await action('main');
    foreignAction = await action('foreign');
  });
  after(() => server.dispose());

  test('test_days, test_count, test_labels, test_interval_day: the shape of a series', async () => {
    const response = await postQuery(server, projects.main!.id, stickiness());
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.body.results, [
      {
        count: 2,
        data: [0, 0, 0, 0, 1, 0, 0, 0, 1, 0],
        days: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
        label: '$pageview',
        labels: TEN_DAYS,
        action: { order: 0, type: 'events', name: '$pageview', id: '$pageview', custom_name: null },
      },
    ]);
    assert.deepEqual(response.body.resolved_date_range, { date_from: '2020-01-11T00:00:00.000Z', date_to: '2020-01-20T23:59:59.999Z' });
    assert.equal(response.body.is_cached, false);
    assert.equal(response.body.timezone, 'UTC');
  });

  test('test_interval_hour: 25 hours from 11 Jan 00:00 to the end of 12 Jan 00:00', async () => {
    const [result] = await results('main', stickiness({ interval: 'hour', dateRange: { date_from: '2020-01-11', date_to: '2020-01-12' } }));
    assert.deepEqual(
      result.labels,
      Array.from({ length: 25 }, (_, hour) => `${hour + 1} hour${hour === 0 ? '' : 's'}`),
    );
    assert.deepEqual(
      result.days,
      Array.from({ length: 25 }, (_, hour) => hour + 1),
    );
    assert.deepEqual(result.data, [2, ...Array<number>(24).fill(0)]);
  });

  test("test_interval_week: the legacy count of weeks (PostHog's HogQL runner counts 3 and answers [0, 0, 2])", async () => {
    // 11–20 Jan is 9 days: the legacy runner has room for 2 weeks, and p1 and p2 were active in 3 (weeks start on Sunday).
    const [result] = await results('main', stickiness({ interval: 'week' }));
    assert.deepEqual([result.labels, result.days, result.data, result.count], [['1 week', '2 weeks'], [1, 2], [0, 0], 0]);
  });

  test('test_interval_month', async () => {
    const [result] = await results('main', stickiness({ interval: 'month' }));
    assert.deepEqual([result.labels, result.days, result.data], [['1 month'], [1], [2]]);
  });

  test('test_property_filtering and test_event_filtering: global and series property filters', async () => {
    const chrome = [{ key: '$browser', operator: 'exact', value: 'Chrome', type: 'event' }];
    assert.deepEqual((await results('main', stickiness({ properties: chrome })))[0].data, ONLY_P1);
    assert.deepEqual((await results('main', stickiness({ series: [{ ...PAGEVIEW, properties: chrome }] })))[0].data, ONLY_P1);
    const group = { type: 'AND', values: [{ type: 'AND', values: chrome }] };
    assert.deepEqual((await results('main', stickiness({ properties: group })))[0].data, ONLY_P1);
  });

  test('test_any_event: every event counts, labelled All events', async () => {
    const [result] = await results('main', stickiness({ series: [{ kind: 'EventsNode', event: null }] }));
    assert.equal(result.label, 'All events');
    assert.deepEqual(result.action, { order: 0, type: 'events', name: 'All events', id: null, custom_name: null });
    assert.deepEqual(result.data, [0, 0, 0, 0, 1, 0, 0, 0, 1, 0]);
  });

  test('test_actions: an action series, named as the action', async () => {
    const [result] = await results('main', stickiness({ series: [{ kind: 'ActionsNode', id: chromeAction, custom_name: 'Chrome views' }] }));
    assert.deepEqual(result.data, ONLY_P1);
    assert.equal(result.label, 'My Action');
    assert.deepEqual(result.action, { order: 0, type: 'actions', name: 'My Action', id: chromeAction, custom_name: 'Chrome views' });
  });

  test('test_compare: the previous period follows each series', async () => {
    const compared = await results('main', stickiness({ stickinessFilter: {}, compareFilter: { compare: true } }));
    assert.deepEqual(
      compared.map((item: any) => [item.count, item.compare, item.compare_label]),
      [
        [2, true, 'current'],
        [0, true, 'previous'],
      ],
    );
    assert.deepEqual(compared[1].labels, TEN_DAYS);
  });

  test('test_compare_to: the compared period starts a day earlier', async () => {
    const compared = await results(
      'main',
      stickiness({ dateRange: { date_from: '2020-01-12', date_to: '2020-01-20' }, stickinessFilter: {}, compareFilter: { compare: true, compare_to: '-1d' } }),
    );
    assert.deepEqual(
      compared.map((item: any) => [item.count, item.compare_label, item.data]),
      [
        [2, 'current', [0, 0, 0, 1, 0, 0, 0, 1, 0]],
        [2, 'previous', [0, 0, 0, 0, 1, 0, 0, 0, 1]],
      ],
    );
  });

  test("test_criteria: an interval counts when the person's events in it meet the criteria", async () => {
    const criteria = (operator: string, value: number, dateRange = { date_from: '2020-01-12', date_to: '2020-01-20' }) =>
      results('criteria', stickiness({ dateRange, stickinessFilter: { stickinessCriteria: { operator, value } } }));
    const gte = (await criteria('gte', 2))[0];
    assert.deepEqual([gte.count, gte.data], [2, [0, 1, 1, 0, 0, 0, 0, 0, 0]]);
    const lte = (await criteria('lte', 1))[0];
    assert.deepEqual([lte.count, lte.data], [2, [2, 0, 0, 0, 0, 0, 0, 0, 0]]);
    const exact = (await criteria('exact', 2, { date_from: '2020-01-11', date_to: '2020-01-20' }))[0];
    assert.deepEqual([exact.count, exact.data], [2, [0, 1, 1, 0, 0, 0, 0, 0, 0, 0]]);
  });

  test("test_filter_test_accounts: the project's test-account filters apply", async () => {
    const patched = await server.patch(`/api/projects/${projects.testAccounts!.id}/`, {
      test_account_filters: [{ key: '$browser', type: 'event', value: 'Chrome', operator: 'exact' }],
    });
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual((await results('testAccounts', stickiness({ filterTestAccounts: true })))[0].data, ONLY_P1);
    assert.deepEqual((await results('testAccounts', stickiness({ filterTestAccounts: false })))[0].data, [0, 0, 0, 0, 1, 0, 0, 0, 1, 0]);
  });

  test('test_cumulative_stickiness: N days or more, the count unchanged', async () => {
    const [result] = await results(
      'cumulative',
      stickiness({ dateRange: { date_from: '2020-01-11', date_to: '2020-01-13' }, stickinessFilter: { computedAs: 'cumulative' } }),
    );
    assert.deepEqual([result.data, result.count, result.labels], [[3, 2, 1], 3, ['1 day or more', '2 days or more', '3 days or more']]);
    const [plain] = await results(
      'cumulative',
      stickiness({ dateRange: { date_from: '2020-01-11', date_to: '2020-01-13' }, stickinessFilter: { computedAs: 'non_cumulative' } }),
    );
    assert.deepEqual([plain.data, plain.count, plain.labels], [[1, 1, 1], 3, ['1 day', '2 days', '3 days']]);
  });

  test('test_cumulative_stickiness_with_intervals: hours', async () => {
    const [result] = await results(
      'cumulativeHours',
      stickiness({
        interval: 'hour',
        dateRange: { date_from: '2020-01-11T12:00:00Z', date_to: '2020-01-11T14:00:00Z' },
        stickinessFilter: { computedAs: 'cumulative' },
      }),
    );
    assert.deepEqual(
      [result.data, result.labels],
      [
        [2, 2, 1],
        ['1 hour or more', '2 hours or more', '3 hours or more'],
      ],
    );
  });

  test('test_cumulative_stickiness_with_property_filter', async () => {
    const [result] = await results(
      'cumulativeFilter',
      stickiness({
        dateRange: { date_from: '2020-01-11', date_to: '2020-01-13' },
        properties: [{ key: 'browser', value: 'Chrome', operator: 'exact', type: 'event' }],
        stickinessFilter: { computedAs: 'cumulative' },
      }),
    );
    assert.deepEqual(result.data, [1, 1, 1]);
  });

  test('test_cumulative_stickiness_zero_days', async () => {
    const [result] = await results(
      'empty',
      stickiness({ dateRange: { date_from: '2020-01-11', date_to: '2020-01-13' }, stickinessFilter: { computedAs: 'cumulative' } }),
    );
    assert.deepEqual([result.data, result.count, result.labels], [[0, 0, 0], 0, ['1 day or more', '2 days or more', '3 days or more']]);
  });

  test('test_cumulative_stickiness_with_criteria', async () => {
    const [result] = await results(
      'cumulativeCriteria',
      stickiness({
        dateRange: { date_from: '2020-01-11', date_to: '2020-01-13' },
        stickinessFilter: { computedAs: 'cumulative', stickinessCriteria: { operator: 'gte', value: 2 } },
      }),
    );
    assert.deepEqual(
      [result.data, result.labels],
      [
        [2, 1, 0],
        ['1 day or more', '2 days or more', '3 days or more'],
      ],
    );
  });

  test('several series keep their order; an InsightVizNode runs its source; environments and no trailing slash answer the same', async () => {
    const query = stickiness({ series: [PAGEVIEW, { kind: 'EventsNode', event: '$pageleave', custom_name: 'Leaves' }] });
    const direct = await results('main', query);
    assert.deepEqual(
      direct.map((item: any) => [item.label, item.action.order, item.action.custom_name, item.count]),
      [
        ['$pageview', 0, null, 2],
        ['$pageleave', 1, 'Leaves', 2],
      ],
    );
    assert.deepEqual(await results('main', { kind: 'InsightVizNode', source: query }), direct);
    for (const url of [`/api/environments/${projects.main!.id}/query/`, `/api/projects/${projects.main!.id}/query`]) {
      const response = await server.post(url, { query });
      assert.equal(response.status, 200, `${url}: ${response.text}`);
      assert.deepEqual(response.body.results, direct, url);
    }
  });

  test('scopes: query:read or insight:read; a key without them is refused', async () => {
    for (const scopes of ['query:read', 'insight:read']) {
      const response = await postQuery(server, projects.main!.id, stickiness(), keys[scopes]);
      assert.equal(response.status, 200, `${scopes}: ${response.text}`);
    }
    const refused = await postQuery(server, projects.main!.id, stickiness(), keys['person:read']);
    assert.equal(refused.status, 403);
    assert.deepEqual(refused.body, ERRORS.missingScope('query:read'));
  });

  test("another project's events are never counted, and its action is an action this project does not have", async () => {
    assert.deepEqual((await results('empty', stickiness()))[0].data, Array<number>(10).fill(0));
    assert.deepEqual(await results('main', stickiness({ series: [{ kind: 'ActionsNode', id: foreignAction }] })), []);
  });

  test('what Tally cannot compute, or a malformed node, is a 400 naming the field', async () => {
    const main = projects.main!.id;
    const source = (fields: Record<string, unknown>) => ({ kind: 'InsightVizNode', source: stickiness(fields) });
    await assertRefused(
      server,
      main,
      stickiness({ intervalCount: 2 }),
      'query.intervalCount',
      'Tally counts stickiness in single intervals: intervalCount must be 1.',
    );
    await assertRefused(server, main, source({ intervalCount: 0 }), 'query.source.intervalCount');
    await assertRefused(
      server,
      main,
      stickiness({ series: [{ ...PAGEVIEW, math: 'unique_group', math_group_type_index: 0 }] }),
      'query.series.0.math',
      'Tally counts persons in this insight: aggregating by groups is not supported yet.',
    );
    await assertRefused(server, main, stickiness({ series: [{ ...PAGEVIEW, math: 'hogql', math_hogql: 'e.properties.prop' }] }), 'query.series.0.math');
    await assertRefused(server, main, stickiness({ series: [{ kind: 'DataWarehouseNode' }] }), 'query.series.0.kind');
    await assertRefused(server, main, stickiness({ series: undefined }), 'query.series', 'A StickinessQuery needs a list of series.');
    await assertRefused(server, main, stickiness({ interval: 'minute' }), 'query.interval');
    await assertRefused(server, main, stickiness({ dateRange: { date_from: 'soon' } }), 'query.dateRange.date_from', 'Unable to parse date "soon".');
    await assertRefused(server, main, stickiness({ samplingFactor: 0.1 }), 'query.samplingFactor');
    await assertRefused(server, main, stickiness({ stickinessFilter: { computedAs: 'rolling' } }), 'query.stickinessFilter.computedAs');
    await assertRefused(
      server,
      main,
      stickiness({ stickinessFilter: { stickinessCriteria: { operator: 'gt', value: 1 } } }),
      'query.stickinessFilter.stickinessCriteria.operator',
    );
    await assertRefused(
      server,
      main,
      stickiness({ stickinessFilter: { stickinessCriteria: { operator: 'gte' } } }),
      'query.stickinessFilter.stickinessCriteria.value',
    );
    await assertRefused(server, main, stickiness({ stickinessFilter: { stickinessCriteria: 2 } }), 'query.stickinessFilter.stickinessCriteria');
    await assertRefused(server, main, stickiness({ compareFilter: { compare: true, compare_to: 'a while ago' } }), 'query.compareFilter.compare_to');
    await assertRefused(server, main, stickiness({ properties: [{ key: 'x', type: 'hogql' }] }), 'query.properties.0.type');
    await assertRefused(
      server,
      main,
      stickiness({ properties: [{ key: 'id', type: 'cohort', value: 999_999 }] }),
      'query.properties',
      'Cohort 999999 does not exist.',
    );
  });

  test('display-only fields are accepted and change nothing', async () => {
    const shown = await results(
      'main',
      stickiness({
        stickinessFilter: { showLegend: true, showValuesOnSeries: true, display: 'ActionsBar', hiddenLegendIndexes: [0] },
        modifiers: {},
        tags: {},
      }),
    );
    assert.deepEqual(shown, await results('main', stickiness()));
  });

  describe('the same numbers as /insights/trend/ with insight=STICKINESS', () => {
    const legacy = async (project: string, params: Record<string, unknown>) => {
      const response = await server.get(`/api/projects/${projects[project]!.id}/insights/trend/?${actorQuery({ insight: 'STICKINESS', ...params })}`);
      assert.equal(response.status, 200, response.text);
      return response.body.result as Array<Record<string, any>>;
    };
    const numbers = (items: Array<Record<string, any>>) =>
      items.map((item) => ({ count: item.count, data: item.data, days: item.days, compare_label: item.compare_label }));
    const byPeriod = (items: Array<Record<string, any>>) => numbers(items).sort((a, b) => String(a.compare_label).localeCompare(String(b.compare_label)));

    const questions: Array<[string, string, Record<string, unknown>, Record<string, unknown>]> = [
      ['one event by day', 'main', { events: [{ id: '$pageview' }], ...DEFAULT_RANGE }, {}],
      [
        'two series, one filtered',
        'main',
        {
          events: [
            { id: '$pageview', order: 0 },
            { id: '$pageleave', order: 1, properties: [{ key: '$browser', value: 'Firefox', type: 'event' }] },
          ],
          ...DEFAULT_RANGE,
        },
        { series: [PAGEVIEW, { kind: 'EventsNode', event: '$pageleave', properties: [{ key: '$browser', value: 'Firefox', type: 'event' }] }] },
      ],
      [
        'global properties',
        'main',
        { events: [{ id: '$pageview' }], properties: [{ key: 'bool_field', value: ['true'], type: 'event' }], ...DEFAULT_RANGE },
        { properties: [{ key: 'bool_field', value: ['true'], type: 'event' }] },
      ],
      [
        'by hour',
        'main',
        { events: [{ id: '$pageview' }], interval: 'hour', date_from: '2020-01-11', date_to: '2020-01-12' },
        { interval: 'hour', dateRange: { date_from: '2020-01-11', date_to: '2020-01-12' } },
      ],
      [
        'by week',
        'main',
        { events: [{ id: '$pageview' }], interval: 'week', date_from: '2020-01-01', date_to: '2020-01-31' },
        { interval: 'week', dateRange: { date_from: '2020-01-01', date_to: '2020-01-31' } },
      ],
      [
        'by month',
        'main',
        { events: [{ id: '$pageview' }], interval: 'month', date_from: '2019-12-01', date_to: '2020-02-29' },
        { interval: 'month', dateRange: { date_from: '2019-12-01', date_to: '2020-02-29' } },
      ],
      ['all events', 'main', { events: [{ id: null }], ...DEFAULT_RANGE }, { series: [{ kind: 'EventsNode' }] }],
      [
        'compared with the previous period',
        'main',
        { events: [{ id: '$pageview' }], compare: true, date_from: '2020-01-15', date_to: '2020-01-20' },
        { compareFilter: { compare: true }, dateRange: { date_from: '2020-01-15', date_to: '2020-01-20' } },
      ],
      ['test accounts left out', 'testAccounts', { events: [{ id: '$pageview' }], filter_test_accounts: true, ...DEFAULT_RANGE }, { filterTestAccounts: true }],
      [
        'every day of three',
        'cumulative',
        { events: [{ id: '$pageview' }], date_from: '2020-01-11', date_to: '2020-01-13' },
        { dateRange: { date_from: '2020-01-11', date_to: '2020-01-13' } },
      ],
    ];
    for (const [name, project, params, fields] of questions) {
      test(name, async () => {
        const expected = await legacy(project, params);
        const actual = await results(project, stickiness(fields));
        assert.deepEqual(byPeriod(actual), byPeriod(expected));
        assert.deepEqual(
          actual.map((item: any) => item.label),
          expected.map((item) => item.label),
        );
      });
    }

    test('an action series', async () => {
      const expected = await legacy('main', { actions: [{ id: chromeAction }], ...DEFAULT_RANGE });
      assert.deepEqual(numbers(await results('main', stickiness({ series: [{ kind: 'ActionsNode', id: chromeAction }] }))), numbers(expected));
    });

    test('cumulative sums the legacy counts from each day on; criteria gte 1 are the legacy counts', async () => {
      const [expected] = await legacy('cumulative', { events: [{ id: '$pageview' }], date_from: '2020-01-11', date_to: '2020-01-13' });
      const [cumulative] = await results(
        'cumulative',
        stickiness({ dateRange: { date_from: '2020-01-11', date_to: '2020-01-13' }, stickinessFilter: { computedAs: 'cumulative' } }),
      );
      const data = expected!.data as number[];
      assert.deepEqual(
        cumulative.data,
        data.map((_, index) => data.slice(index).reduce((sum, value) => sum + value, 0)),
      );
      assert.equal(cumulative.count, expected!.count);
      const [criteria] = await results('main', stickiness({ stickinessFilter: { stickinessCriteria: { operator: 'gte', value: 1 } } }));
      const [plain] = await legacy('main', { events: [{ id: '$pageview' }], ...DEFAULT_RANGE });
      assert.deepEqual(criteria.data, plain!.data);
    });
  });

  test("a saved insight holding a StickinessQuery computes the query's results", async () => {
    const query = { kind: 'InsightVizNode', source: stickiness({ stickinessFilter: { computedAs: 'cumulative' } }) };
    const created = await server.post(`/api/projects/${projects.main!.id}/insights/`, { name: 'Sticky', query });
    assert.equal(created.status, 201, created.text);
    const computed = await server.get(`/api/projects/${projects.main!.id}/insights/${created.body.id}/?refresh=blocking`);
    assert.equal(computed.status, 200, computed.text);
    assert.deepEqual(computed.body.result, await results('main', query));
    assert.deepEqual(computed.body.result[0].data, [2, 2, 2, 2, 2, 1, 1, 1, 1, 0]);
    const broken = await server.post(`/api/projects/${projects.main!.id}/insights/`, { name: 'Broken', query: stickiness({ intervalCount: 3 }) });
    assert.equal(broken.status, 201, broken.text);
    const refused = await server.get(`/api/projects/${projects.main!.id}/insights/${broken.body.id}/?refresh=blocking`);
    assert.equal(refused.status, 400);
    assert.deepEqual(refused.body, invalid('query.intervalCount', 'Tally counts stickiness in single intervals: intervalCount must be 1.'));
  });
});
