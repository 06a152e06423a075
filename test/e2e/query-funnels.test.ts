import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { capture, type CapturedEvent } from '../support/definitions.js';
import { QUERY_TOKEN, runQuery, startQueryServer } from '../support/query-server.js';
import { ERRORS, type TallyServer } from '../support/tally.js';

/**
 * FunnelsQuery on `POST /query/`: PostHog's funnel query-runner tests
 * (posthog/hogql_queries/insights/funnels/test/test_funnel.py, breakdown_cases.py,
 * test_funnel_unordered.py, test_funnel_time_to_convert.py, test_funnel_trends.py) restated as
 * query nodes with their numbers, each dataset in a month (or with event names) of its own; and
 * the same questions asked of `/insights/funnel/`, which must answer the same numbers.
 */

function ev(event: string, distinctId: string, time: string, properties: Record<string, unknown> = {}): CapturedEvent {
  return { event, distinct_id: distinctId, timestamp: `${time}Z`, properties };
}

const events = (...names: Array<string | null>) => names.map((event) => ({ kind: 'EventsNode', event }));

function funnel(series: unknown[], from: string, to: string, fields: Record<string, unknown> = {}) {
  return { kind: 'FunnelsQuery', series, dateRange: { date_from: from, date_to: to }, ...fields };
}

type Step = Record<string, any>;

/** The legacy answer without what only it has (its persons URLs). */
function withoutPersonsUrls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutPersonsUrls);
  if (typeof value !== 'object' || value === null) return value;
  const { converted_people_url: _converted, dropped_people_url: _dropped, ...rest } = value as Record<string, unknown>;
  return rest;
}

describe('query API: FunnelsQuery', () => {
  let server: TallyServer;
  let keys: Record<string, string>;
  let foreign: { id: number; api_token: string };
  let paid: number;
  let watched: number;
  let cohort: number;

  async function results(query: unknown): Promise<any> {
    const response = await runQuery(server, query);
    assert.equal(response.status, 200, response.text);
    return response.body.results;
  }

  const counts = (steps: Step[]) => steps.map((step) => step.count);

  before(async () => {
    const started = await startQueryServer(['query:read', 'insight:read', 'person:read', 'query:read@1']);
    ({ server, keys, foreign } = started);
    const action = async (name: string, label: string, project = 1) => {
      const created = await server.post(`/api/projects/${project}/actions/`, {
        name,
        steps: [{ event: '$autocapture', properties: [{ key: 'label', value: label, type: 'event' }] }],
      });
      assert.equal(created.status, 201, created.text);
      return created.body.id as number;
    };
    paid = await action('paid', 'pay');
    watched = await action('watched movie', 'movie');
    const pay = (id: string, time: string, properties: Record<string, unknown> = {}) => ev('$autocapture', id, time, { label: 'pay', ...properties });
    const movie = (id: string, time: string) => ev('$autocapture', id, time, { label: 'movie' });
    const signup = (id: string, time: string, properties: Record<string, unknown> = {}) => ev('user signed up', id, time, properties);
    const journey = (id: string, steps: Array<[string, string]>, properties: Record<string, unknown> = {}) =>
      steps.map(([event, time]) => ev(event, id, time, properties));

    const batch: CapturedEvent[] = [
      // test_funnel_events (February 2020): actions as steps; two distinct ids of one person.
      signup('stopped_after_signup', '2020-02-01T10:00:00'),
      signup('stopped_after_pay', '2020-02-01T10:01:00'),
      pay('stopped_after_pay', '2020-02-01T10:02:00'),
      signup('had_anonymous_id', '2020-02-01T10:03:00'),
      ev('$identify', 'completed_movie', '2020-02-01T10:03:30', { $anon_distinct_id: 'had_anonymous_id' }),
      pay('completed_movie', '2020-02-01T10:04:00'),
      movie('completed_movie', '2020-02-01T10:05:00'),
      movie('just_did_movie', '2020-02-01T10:06:00'),
      pay('wrong_order', '2020-02-01T10:07:00'),
      signup('wrong_order', '2020-02-01T10:08:00'),
      movie('wrong_order', '2020-02-01T10:09:00'),
      // test_funnel_with_any_event (March 2020, nothing else that month).
      signup('any_signup', '2020-03-01T10:00:00'),
      signup('any_pay', '2020-03-01T10:01:00'),
      movie('any_pay', '2020-03-01T10:02:00'),
      signup('any_movie_after', '2020-03-01T10:03:00'),
      movie('any_movie_after', '2020-03-01T10:04:00'),
      movie('any_movie', '2020-03-01T10:05:00'),
      movie('any_wrong', '2020-03-01T10:06:00'),
      signup('any_wrong', '2020-03-01T10:07:00'),
      movie('any_wrong', '2020-03-01T10:08:00'),
      // test_funnel_prop_filters (April 2020).
      signup('with_property', '2020-04-01T10:00:00', { $browser: 'Safari' }),
      pay('with_property', '2020-04-01T10:01:00', { $browser: 'Safari' }),
      signup('without_property', '2020-04-01T10:02:00'),
      pay('without_property', '2020-04-01T10:03:00'),
      signup('half_property', '2020-04-01T10:04:00', { $browser: 'Safari' }),
      pay('half_property', '2020-04-01T10:05:00'),
      // test_funnel_filter_test_accounts (May 2020).
      ev('event1', 'test_person', '2020-05-01T10:00:00', { $set: { email: 'test@posthog.com' } }),
      ev('event1', 'real_person', '2020-05-01T10:01:00'),
      // test_basic_funnel_default_funnel_days (January 2020).
      signup('user_1', '2020-01-02T14:00:00'),
      ev('paid', 'user_1', '2020-01-10T14:00:00'),
      // test_basic_funnel_with_repeat_steps (June 2020).
      signup('stopped_after_signup1', '2020-06-01T10:00:00'),
      signup('stopped_after_signup1', '2020-06-01T11:00:00'),
      signup('stopped_after_signup2', '2020-06-01T10:00:00'),
      // test_month_interval (funnel trends, 2020): one complete run in May.
      ...journey('trend_month', [
        ['step one', '2020-05-01T00:00:00'],
        ['step two', '2020-05-01T01:00:00'],
        ['step three', '2020-05-01T02:00:00'],
      ]),
      // test_funnel_step_breakdown_event_with_string_only_breakdown (January 2020); the first person is in a cohort.
      ...journey('person1', [['sign up', '2020-01-01T12:00:00']], { key: 'val', $browser: 'Chrome', $set: { key: 'value' } }),
      ...journey(
        'person1',
        [
          ['play movie', '2020-01-01T13:00:00'],
          ['buy', '2020-01-01T15:00:00'],
        ],
        { key: 'val', $browser: 'Chrome' },
      ),
      ...journey(
        'person2',
        [
          ['sign up', '2020-01-02T14:00:00'],
          ['play movie', '2020-01-02T16:00:00'],
        ],
        { key: 'val', $browser: 'Safari' },
      ),
      ...journey('person3', [['sign up', '2020-01-02T14:00:00']], { key: 'val', $browser: 'Safari' }),
      // test_funnel_step_multi_property_breakdown_event, in February 2022.
      ...journey(
        'multi1',
        [
          ['sign up', '2022-02-01T12:00:00'],
          ['play movie', '2022-02-01T13:00:00'],
          ['buy', '2022-02-01T15:00:00'],
        ],
        { $browser: 'Chrome', $browser_version: 95 },
      ),
      ...journey(
        'multi2',
        [
          ['sign up', '2022-02-02T14:00:00'],
          ['play movie', '2022-02-02T16:00:00'],
        ],
        { $browser: 'Safari', $browser_version: 15 },
      ),
      ...journey('multi3', [['sign up', '2022-02-02T14:00:00']], { $browser: 'Safari', $browser_version: 14 }),
      // Step attribution (March 2022): the value of the attributed step's event.
      ev('sign up', 'attr1', '2022-03-01T12:00:00', { $browser: 'Chrome' }),
      ev('buy', 'attr1', '2022-03-01T13:00:00'),
      ev('sign up', 'attr2', '2022-03-01T13:00:00'),
      ev('sign up', 'attr3', '2022-03-02T14:00:00', { $browser: 'Mac' }),
      ev('sign up', 'attr4', '2022-03-02T15:00:00', { $browser: 0 }),
      ev('buy', 'attr4', '2022-03-02T16:00:00', { $browser: 'alakazam' }),
      // Groups (April 2022): two persons of one company.
      ev('$groupidentify', 'g_person1', '2022-04-01T09:00:00', { $group_type: 'company', $group_key: 'acme', $group_set: { industry: 'tech' } }),
      ev('sign up', 'g_person1', '2022-04-01T10:00:00', { $groups: { company: 'acme' } }),
      ev('sign up', 'g_person2', '2022-04-01T11:00:00', { $groups: { company: 'acme' } }),
      ev('play movie', 'g_person2', '2022-04-01T12:00:00', { $groups: { company: 'acme' } }),
      ev('sign up', 'g_person3', '2022-04-01T12:00:00', { $groups: { company: 'globex' } }),
    ];
    // test_advanced_funnel_with_repeat_steps (July 2020).
    const minutes = (id: string, names: string[]) => names.map((event, minute) => ev(event, id, `2020-07-01T10:${String(minute).padStart(2, '0')}:00`));
    batch.push(
      ...minutes('repeat_signup1', ['user signed up']),
      ...minutes('repeat_pageview1', ['user signed up', '$pageview']),
      ...minutes('repeat_pageview2', ['user signed up', '$pageview', 'blaah blaa', '$pageview']),
      ...minutes('repeat_pageview3', ['user signed up', '$pageview', 'blaah blaa', '$pageview', '$pageview', 'blaah blaa']),
      ...minutes('repeat_pageview4', ['user signed up', '$pageview', '$pageview', '$pageview', '$pageview']),
    );
    // test_basic_unordered_funnel (October 2021).
    const unordered = (id: string, names: string[]) => names.map((event, minute) => ev(event, id, `2021-10-01T10:${String(minute).padStart(2, '0')}:00`));
    batch.push(
      ...unordered('stopped_after_signup1', ['user signed up']),
      ...unordered('stopped_after_pageview1', ['$pageview', 'user signed up']),
      ...unordered('stopped_after_insightview', ['user signed up', '$pageview', 'blaah blaa', 'insight viewed']),
      ...unordered('stopped_after_insightview2', ['insight viewed', '$pageview', 'user signed up']),
      ...unordered('stopped_after_insightview3', ['$pageview', 'user signed up', 'blaah blaa', 'insight viewed']),
      ...unordered('stopped_after_insightview4', ['blaah blaa', 'insight viewed']),
      ...unordered('stopped_after_insightview5', ['$pageview', 'blaah blaa']),
      ...unordered('stopped_after_insightview6', ['insight viewed', '$pageview']),
    );
    // test_funnel_exclusions_full_window (November 2021).
    batch.push(
      signup('excl_person1', '2021-11-01T01:00:00'),
      ev('paid', 'excl_person1', '2021-11-01T02:00:00'),
      signup('excl_person2', '2021-11-01T03:00:00'),
      ev('x 1 name with numbers 2', 'excl_person2', '2021-11-01T03:30:00'),
      ev('paid', 'excl_person2', '2021-11-01T04:00:00'),
      signup('excl_person3', '2021-11-01T05:00:00'),
      ev('paid', 'excl_person3', '2021-11-01T06:00:00'),
    );
    // Time to convert (test_funnel_time_to_convert.py): ordered in June 2021, unordered in July, strict in August.
    const steps3 = (id: string, list: Array<[string, string]>) => journey(id, list);
    batch.push(
      ...steps3('user a', [
        ['step one', '2021-06-08T18:00:00'],
        ['step two', '2021-06-08T19:00:00'],
        ['step three', '2021-06-08T21:00:00'],
      ]),
      ...steps3('user b', [
        ['step one', '2021-06-09T13:00:00'],
        ['step two', '2021-06-09T13:37:00'],
      ]),
      ...steps3('user c', [
        ['step one', '2021-06-11T07:00:00'],
        ['step two', '2021-06-12T06:00:00'],
      ]),
      ...steps3('unordered a', [
        ['step three', '2021-07-08T18:00:00'],
        ['step one', '2021-07-08T19:00:00'],
        ['step two', '2021-07-08T21:00:00'],
      ]),
      ...steps3('unordered b', [
        ['step one', '2021-07-09T13:00:00'],
        ['step two', '2021-07-09T13:37:00'],
      ]),
      ...steps3('unordered c', [
        ['step two', '2021-07-11T07:00:00'],
        ['step one', '2021-07-12T06:00:00'],
      ]),
      ...steps3('strict a', [
        ['step one', '2021-08-08T18:00:00'],
        ['step two', '2021-08-08T19:00:00'],
        ['step three', '2021-08-08T21:00:00'],
      ]),
      ...steps3('strict b', [
        ['step one', '2021-08-09T13:00:00'],
        ['step two', '2021-08-09T13:37:00'],
        ['blah', '2021-08-09T13:38:00'],
        ['step three', '2021-08-09T13:39:00'],
      ]),
      ...steps3('strict c', [
        ['step one', '2021-08-11T07:00:00'],
        ['step two', '2021-08-12T06:00:00'],
      ]),
      ...steps3('strict d', [
        ['step one', '2021-08-11T07:00:00'],
        ['blah', '2021-08-12T07:00:00'],
        ['step two', '2021-08-12T09:00:00'],
      ]),
    );
    // Funnel trends (test_funnel_trends.py): the sample data in May 2021, one person over several periods in September.
    batch.push(
      ...steps3('user_one', [
        ['step one', '2021-05-01T00:00:00'],
        ['step two', '2021-05-03T00:00:00'],
        ['step three', '2021-05-05T00:00:00'],
      ]),
      ...steps3('user_two', [
        ['step one', '2021-05-02T00:00:00'],
        ['step two', '2021-05-04T00:00:00'],
      ]),
      ...steps3('user_three', [['step one', '2021-05-06T00:00:00']]),
      ...steps3('user_four', [['step none', '2021-05-06T00:00:00']]),
      ...steps3('user_five', [
        ['step one', '2021-05-01T01:00:00'],
        ['step two', '2021-05-01T02:00:00'],
        ['step three', '2021-05-01T03:00:00'],
      ]),
      ...steps3('user_six', [
        ['step one', '2021-05-01T00:00:00'],
        ['step two', '2021-05-03T00:00:00'],
        ['step three', '2021-05-05T00:00:00'],
      ]),
      ...steps3('user_seven', [
        ['step one', '2021-05-02T00:00:00'],
        ['step two', '2021-05-04T00:00:00'],
      ]),
      ...steps3('periods_one', [
        ['step one', '2021-09-01T01:00:00'],
        ['step two', '2021-09-01T02:00:00'],
        ['step three', '2021-09-01T03:00:00'],
        ['step one', '2021-09-03T01:00:00'],
        ['step two', '2021-09-03T02:00:00'],
        ['step one', '2021-09-04T11:00:00'],
        ['step two', '2021-09-04T12:00:00'],
        ['step three', '2021-09-04T13:00:00'],
      ]),
      ...steps3('periods_two', [['step one', '2021-09-04T18:00:00']]),
    );
    await capture(server, QUERY_TOKEN, batch);
    // The foreign project has the same events: none of them may count in project 1.
    await capture(server, foreign.api_token, [
      ev('user signed up', 'foreign_user', '2020-01-02T14:00:00'),
      ev('paid', 'foreign_user', '2020-01-03T14:00:00'),
      ev('sign up', 'foreign_user', '2020-01-01T12:00:00', { $browser: 'Chrome' }),
    ]);
    const created = await server.post('/api/projects/1/cohorts/', {
      name: 'valued',
      filters: { properties: { type: 'AND', values: [{ key: 'key', value: 'value', type: 'person', operator: 'exact' }] } },
    });
    assert.equal(created.status, 201, created.text);
    cohort = created.body.id;
    const patched = await server.patch('/api/projects/1/', {
      test_account_filters: [{ key: 'email', value: '@posthog.com', operator: 'not_icontains', type: 'person' }],
    });
    assert.equal(patched.status, 200, patched.text);
  });
  after(() => server.dispose());

  test('test_funnel_events: actions as steps, with their names; a person counts once across distinct ids', async () => {
    const steps = await results(
      funnel(
        [
          { kind: 'EventsNode', event: 'user signed up' },
          { kind: 'ActionsNode', id: paid },
          { kind: 'ActionsNode', id: watched, custom_name: 'Watched' },
        ],
        '2020-02-01',
        '2020-02-07',
      ),
    );
    assert.deepEqual(steps, [
      {
        action_id: 'user signed up',
        name: 'user signed up',
        custom_name: null,
        order: 0,
        people: [],
        count: 4,
        type: 'events',
        average_conversion_time: null,
        median_conversion_time: null,
      },
      {
        action_id: paid,
        name: 'paid',
        custom_name: null,
        order: 1,
        people: [],
        count: 2,
        type: 'actions',
        average_conversion_time: 60,
        median_conversion_time: 60,
      },
      {
        action_id: watched,
        name: 'watched movie',
        custom_name: 'Watched',
        order: 2,
        people: [],
        count: 1,
        type: 'actions',
        average_conversion_time: 60,
        median_conversion_time: 60,
      },
    ]);
  });

  test('test_funnel_with_any_event: steps of every event have no name', async () => {
    const steps = await results(funnel(events(null, null, null), '2020-03-01', '2020-03-07'));
    assert.deepEqual(
      steps.map((step: Step) => [step.action_id, step.name, step.count]),
      [
        [null, null, 5],
        [null, null, 3],
        [null, null, 1],
      ],
    );
  });

  test('test_funnel_prop_filters and test_funnel_filter_test_accounts', async () => {
    const series = [
      { kind: 'EventsNode', event: 'user signed up' },
      { kind: 'ActionsNode', id: paid },
      { kind: 'ActionsNode', id: watched },
    ];
    const filtered = await results(funnel(series, '2020-04-01', '2020-04-07', { properties: [{ key: '$browser', value: 'Safari', type: 'event' }] }));
    assert.deepEqual(counts(filtered), [2, 1, 0]);
    const grouped = await results(
      funnel(series, '2020-04-01', '2020-04-07', { properties: { type: 'AND', values: [{ type: 'OR', values: [{ key: '$browser', value: 'Safari' }] }] } }),
    );
    assert.deepEqual(counts(grouped), [2, 1, 0]);
    const accounts = funnel(events('event1', 'event1'), '2020-05-01', '2020-05-07');
    assert.deepEqual(counts(await results(accounts)), [2, 0]);
    assert.deepEqual(counts(await results({ ...accounts, filterTestAccounts: true })), [1, 0]);
  });

  test('test_basic_funnel_default_funnel_days, and the repeat-step tests with every window of the same length', async () => {
    const twoSteps = await results(funnel(events('user signed up', 'paid'), '2020-01-01', '2020-01-14'));
    assert.deepEqual(counts(twoSteps), [1, 1]);
    assert.deepEqual([twoSteps[0].name, twoSteps[1].name, twoSteps[1].average_conversion_time], ['user signed up', 'paid', 691_200]);
    const repeated = funnel(events('user signed up', 'user signed up'), '2020-06-01', '2020-06-07');
    for (const funnelsFilter of [
      {},
      { funnelWindowInterval: 14, funnelWindowIntervalUnit: 'day' },
      { funnelWindowInterval: 2, funnelWindowIntervalUnit: 'week' },
    ]) {
      assert.deepEqual(counts(await results({ ...repeated, funnelsFilter })), [2, 1], JSON.stringify(funnelsFilter));
    }
    // A window shorter than the hour between the two sign-ups converts nobody.
    assert.deepEqual(counts(await results({ ...repeated, funnelsFilter: { funnelWindowInterval: 59, funnelWindowIntervalUnit: 'minute' } })), [2, 0]);
    const advanced = await results(funnel(events('user signed up', '$pageview', '$pageview', '$pageview', '$pageview'), '2020-07-01', '2020-07-07'));
    assert.deepEqual(counts(advanced), [5, 4, 3, 2, 1]);
    assert.deepEqual(
      advanced.map((step: Step) => step.name),
      ['user signed up', '$pageview', '$pageview', '$pageview', '$pageview'],
    );
  });

  test('test_basic_unordered_funnel: "Completed N steps"', async () => {
    const steps = await results(
      funnel(events('user signed up', '$pageview', 'insight viewed'), '2021-10-01', '2021-10-07', { funnelsFilter: { funnelOrderType: 'unordered' } }),
    );
    assert.deepEqual(
      steps.map((step: Step) => [step.action_id, step.name, step.custom_name, step.order, step.type, step.count]),
      [
        [null, 'Completed 1 step', null, 0, 'events', 8],
        [null, 'Completed 2 steps', null, 1, 'events', 5],
        [null, 'Completed 3 steps', null, 2, 'events', 3],
      ],
    );
  });

  test('test_funnel_exclusions_full_window: an excluded person leaves every step', async () => {
    const query = funnel(events('user signed up', 'paid'), '2021-11-01 00:00:00', '2021-11-14 00:00:00', {
      funnelsFilter: { exclusions: [{ kind: 'EventsNode', event: 'x 1 name with numbers 2', funnelFromStep: 0, funnelToStep: 1 }] },
    });
    assert.deepEqual(counts(await results(query)), [2, 2]);
    assert.deepEqual(counts(await results({ ...query, funnelsFilter: {} })), [3, 3]);
  });

  test('breakdown_cases: one property (values boxed in lists), several properties', async () => {
    const byBrowser = await results(
      funnel(events('sign up', 'play movie', 'buy'), '2020-01-01', '2020-01-08', {
        breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' },
        funnelsFilter: { funnelWindowInterval: 7 },
      }),
    );
    const step = (name: string, order: number, count: number, breakdown: string[], time: number | null = null) => ({
      action_id: name,
      name,
      custom_name: null,
      order,
      people: [],
      count,
      type: 'events',
      average_conversion_time: time,
      median_conversion_time: time,
      breakdown,
      breakdown_value: breakdown,
    });
    assert.deepEqual(byBrowser, [
      [step('sign up', 0, 1, ['Chrome']), step('play movie', 1, 1, ['Chrome'], 3600), step('buy', 2, 1, ['Chrome'], 7200)],
      [step('sign up', 0, 2, ['Safari']), step('play movie', 1, 1, ['Safari'], 7200), step('buy', 2, 0, ['Safari'])],
    ]);
    const multi = await results(
      funnel(events('sign up', 'play movie', 'buy'), '2022-02-01', '2022-02-08', {
        breakdownFilter: { breakdown: ['$browser', '$browser_version'] },
        funnelsFilter: { funnelWindowInterval: 7 },
      }),
    );
    const byValue = [...multi].sort((a: Step[], b: Step[]) => JSON.stringify(a[0]!.breakdown).localeCompare(JSON.stringify(b[0]!.breakdown)));
    assert.deepEqual(byValue, [
      [step('sign up', 0, 1, ['Chrome', '95']), step('play movie', 1, 1, ['Chrome', '95'], 3600), step('buy', 2, 1, ['Chrome', '95'], 7200)],
      [step('sign up', 0, 1, ['Safari', '14']), step('play movie', 1, 0, ['Safari', '14']), step('buy', 2, 0, ['Safari', '14'])],
      [step('sign up', 0, 1, ['Safari', '15']), step('play movie', 1, 1, ['Safari', '15'], 7200), step('buy', 2, 0, ['Safari', '15'])],
    ]);
    // The same properties as PostHog's `breakdowns` list.
    const listed = await results(
      funnel(events('sign up', 'play movie', 'buy'), '2022-02-01', '2022-02-08', {
        breakdownFilter: {
          breakdowns: [
            { property: '$browser', type: 'event' },
            { property: '$browser_version', type: 'event' },
          ],
        },
        funnelsFilter: { funnelWindowInterval: 7 },
      }),
    );
    assert.deepEqual(listed, multi);
    // A cohort breakdown shows the cohort's name and selects by its id.
    const cohorts = await results(
      funnel(events('sign up', 'play movie', 'buy'), '2020-01-01', '2020-01-08', { breakdownFilter: { breakdown: ['all', cohort], breakdown_type: 'cohort' } }),
    );
    assert.deepEqual(
      cohorts.map((list: Step[]) => [list[0]!.breakdown, list[0]!.breakdown_value, counts(list)]),
      [
        ['all users', 0, [3, 2, 1]],
        ['valued', cohort, [1, 1, 1]],
      ],
    );
  });

  test('test_funnel_step_non_array_breakdown_with_step_one_attribution: unordered funnels attribute by the first step only', async () => {
    const query = funnel(events('sign up', 'buy'), '2022-03-01', '2022-03-08', {
      breakdownFilter: { breakdown: '$browser' },
      funnelsFilter: { breakdownAttributionType: 'step', breakdownAttributionValue: 1, funnelOrderType: 'unordered' },
    });
    const refused = await runQuery(server, query);
    assert.equal(refused.status, 400);
    assert.equal(refused.body.attr, 'query.funnelsFilter.breakdownAttributionValue');
    // Ordered, the second step's value counts; persons without that step drop out.
    const ordered = await results({ ...query, funnelsFilter: { breakdownAttributionType: 'step', breakdownAttributionValue: 1 } });
    assert.deepEqual(ordered.map((list: Step[]) => [list[0]!.breakdown, counts(list), list[1]!.average_conversion_time]).sort(), [
      [[''], [1, 1], 3600],
      [['alakazam'], [1, 1], 3600],
    ]);
  });

  test('aggregation_group_type_index counts groups; a group breakdown keeps its values as strings', async () => {
    const query = funnel(events('sign up', 'play movie'), '2022-04-01', '2022-04-07', { aggregation_group_type_index: 0 });
    assert.deepEqual(counts(await results(query)), [2, 1]);
    const byIndustry = await results({
      ...query,
      aggregation_group_type_index: undefined,
      breakdownFilter: { breakdown: 'industry', breakdown_type: 'group', breakdown_group_type_index: 0 },
    });
    assert.deepEqual(
      byIndustry.map((list: Step[]) => [list[0]!.breakdown, list[0]!.breakdown_value, counts(list)]),
      [
        ['tech', 'tech', [2, 1]],
        ['', '', [1, 0]],
      ],
    );
  });

  test('time to convert: test_auto_bin_count_single_step, test_custom_bin_count_single_step, test_basic_unordered, test_basic_strict', async () => {
    const timeToConvert = (month: string, funnelsFilter: Record<string, unknown> = {}) =>
      funnel(events('step one', 'step two', 'step three'), `2021-${month}-07 00:00:00`, `2021-${month}-13 23:59:59`, {
        funnelsFilter: { funnelVizType: 'time_to_convert', funnelFromStep: 0, funnelToStep: 1, funnelWindowInterval: 7, ...funnelsFilter },
      });
    const autoBins = {
      bins: [
        [2220, 2],
        [42510, 0],
        [82800, 1],
      ],
      average_conversion_time: 29540,
    };
    assert.deepEqual(await results(timeToConvert('06')), autoBins);
    assert.deepEqual(await results(timeToConvert('06', { binCount: 7 })), {
      bins: [
        [2220, 2],
        [13732, 0],
        [25244, 0],
        [36756, 0],
        [48268, 0],
        [59780, 0],
        [71292, 1],
        [82804, 0],
      ],
      average_conversion_time: 29540,
    });
    assert.deepEqual(await results(timeToConvert('07', { funnelOrderType: 'unordered' })), autoBins);
    assert.deepEqual(await results(timeToConvert('08', { funnelOrderType: 'strict' })), autoBins);
    assert.deepEqual(await results(timeToConvert('06', { funnelWindowInterval: 1, funnelWindowIntervalUnit: 'minute' })), {
      bins: [],
      average_conversion_time: null,
    });
  });

  test('funnel trends: test_all_results_for_day_interval, test_window_size_one_day, test_one_person_in_multiple_periods_and_windows, test_month_interval', async () => {
    const trends = (from: string, to: string, funnelsFilter: Record<string, unknown>, interval = 'day') =>
      funnel(events('step one', 'step two', 'step three'), from, to, { interval, funnelsFilter: { funnelVizType: 'trends', ...funnelsFilter } });
    assert.deepEqual(await results(trends('2021-05-01 00:00:00', '2021-05-07 00:00:00', { funnelWindowInterval: 7 })), [
      {
        count: 7,
        data: [100, 0, 0, 0, 0, 0, 0],
        days: ['2021-05-01', '2021-05-02', '2021-05-03', '2021-05-04', '2021-05-05', '2021-05-06', '2021-05-07'],
        labels: ['1-May-2021', '2-May-2021', '3-May-2021', '4-May-2021', '5-May-2021', '6-May-2021', '7-May-2021'],
      },
    ]);
    const [oneDay] = await results(trends('2021-05-01 00:00:00', '2021-05-07 00:00:00', { funnelWindowInterval: 1 }));
    assert.deepEqual(oneDay.data, [33.33, 0, 0, 0, 0, 0, 0]);
    const [periods] = await results(trends('2021-09-01 00:00:00', '2021-09-04 23:59:59', { funnelWindowInterval: 1 }));
    assert.deepEqual(periods.data, [100, 0, 0, 50]);
    const [months] = await results(trends('2020-01-01 00:00:00', '2020-07-01 00:00:00', { funnelWindowInterval: 7 }, 'month'));
    assert.deepEqual(months, {
      count: 7,
      data: [0, 0, 0, 0, 100, 0, 0],
      days: ['2020-01-01', '2020-02-01', '2020-03-01', '2020-04-01', '2020-05-01', '2020-06-01', '2020-07-01'],
      labels: ['1-Jan-2020', '1-Feb-2020', '1-Mar-2020', '1-Apr-2020', '1-May-2020', '1-Jun-2020', '1-Jul-2020'],
    });
    // From the second step: only actors who reached it count.
    const [fromSecond] = await results(trends('2021-05-01 00:00:00', '2021-05-07 00:00:00', { funnelWindowInterval: 7, funnelFromStep: 1, funnelToStep: 2 }));
    assert.deepEqual(fromSecond.data, [100, 0, 0, 0, 0, 0, 0]);
  });

  test("EQUIVALENCE: the same questions give /insights/funnel/'s numbers and strings", async () => {
    const movieSteps = [
      { id: 'sign up', order: 0 },
      { id: 'play movie', order: 1 },
      { id: 'buy', order: 2 },
    ];
    const questions: Array<[Record<string, unknown>, Record<string, unknown>]> = [
      [
        funnel(
          [
            { kind: 'EventsNode', event: 'user signed up', custom_name: 'Signed up' },
            { kind: 'ActionsNode', id: paid },
            { kind: 'ActionsNode', id: watched },
          ],
          '2020-02-01',
          '2020-02-07',
        ),
        {
          events: [{ id: 'user signed up', order: 0, custom_name: 'Signed up' }],
          actions: [
            { id: paid, order: 1 },
            { id: watched, order: 2 },
          ],
          date_from: '2020-02-01',
          date_to: '2020-02-07',
        },
      ],
      [
        funnel(
          [
            { kind: 'EventsNode', event: 'user signed up', properties: [{ key: '$browser', value: 'Safari' }] },
            { kind: 'ActionsNode', id: paid },
          ],
          '2020-04-01',
          '2020-04-07',
          {
            properties: [{ key: '$browser', value: 'Chrome', operator: 'is_not' }],
          },
        ),
        {
          events: [{ id: 'user signed up', order: 0, properties: [{ key: '$browser', value: 'Safari' }] }],
          actions: [{ id: paid, order: 1 }],
          properties: [{ key: '$browser', value: 'Chrome', operator: 'is_not' }],
          date_from: '2020-04-01',
          date_to: '2020-04-07',
        },
      ],
      [
        funnel(events('sign up', 'play movie', 'buy'), '2020-01-01', '2020-01-08', { breakdownFilter: { breakdown: '$browser', breakdown_limit: 1 } }),
        { events: movieSteps, breakdown: '$browser', breakdown_limit: 1, date_from: '2020-01-01', date_to: '2020-01-08' },
      ],
      [
        funnel(events('sign up', 'play movie', 'buy'), '2020-01-01', '2020-01-08', {
          breakdownFilter: { breakdown: ['all', cohort], breakdown_type: 'cohort' },
        }),
        { events: movieSteps, breakdown: ['all', cohort], breakdown_type: 'cohort', date_from: '2020-01-01', date_to: '2020-01-08' },
      ],
      [
        funnel(events('sign up', 'play movie', 'buy'), '2022-02-01', '2022-02-08', {
          breakdownFilter: { breakdown: ['$browser', '$browser_version'] },
          funnelsFilter: { funnelOrderType: 'unordered' },
        }),
        { events: movieSteps, breakdown: ['$browser', '$browser_version'], funnel_order_type: 'unordered', date_from: '2022-02-01', date_to: '2022-02-08' },
      ],
      [
        funnel(events('sign up', 'buy'), '2022-03-01', '2022-03-08', {
          breakdownFilter: { breakdown: '$browser' },
          funnelsFilter: { breakdownAttributionType: 'last_touch' },
        }),
        {
          events: [
            { id: 'sign up', order: 0 },
            { id: 'buy', order: 1 },
          ],
          breakdown: '$browser',
          breakdown_attribution_type: 'last_touch',
          date_from: '2022-03-01',
          date_to: '2022-03-08',
        },
      ],
      [
        funnel(events('sign up', 'buy'), '2022-03-01', '2022-03-08', {
          breakdownFilter: { breakdown: '$browser' },
          funnelsFilter: { breakdownAttributionType: 'all_events' },
        }),
        {
          events: [
            { id: 'sign up', order: 0 },
            { id: 'buy', order: 1 },
          ],
          breakdown: '$browser',
          breakdown_attribution_type: 'all_events',
          date_from: '2022-03-01',
          date_to: '2022-03-08',
        },
      ],
      [
        funnel(events('sign up', 'play movie'), '2022-04-01', '2022-04-07', {
          breakdownFilter: { breakdown: 'industry', breakdown_type: 'group', breakdown_group_type_index: 0 },
        }),
        {
          events: [
            { id: 'sign up', order: 0 },
            { id: 'play movie', order: 1 },
          ],
          breakdown: 'industry',
          breakdown_type: 'group',
          breakdown_group_type_index: 0,
          date_from: '2022-04-01',
          date_to: '2022-04-07',
        },
      ],
      [
        funnel(events('sign up', 'play movie'), '2022-04-01', '2022-04-07', { aggregation_group_type_index: 0 }),
        {
          events: [
            { id: 'sign up', order: 0 },
            { id: 'play movie', order: 1 },
          ],
          aggregation_group_type_index: 0,
          date_from: '2022-04-01',
          date_to: '2022-04-07',
        },
      ],
      [
        funnel(events('user signed up', '$pageview', '$pageview', '$pageview', '$pageview'), '2020-07-01', '2020-07-07', {
          funnelsFilter: { funnelOrderType: 'strict' },
        }),
        {
          events: ['user signed up', '$pageview', '$pageview', '$pageview', '$pageview'].map((id, order) => ({ id, order })),
          funnel_order_type: 'strict',
          date_from: '2020-07-01',
          date_to: '2020-07-07',
        },
      ],
      [
        funnel(events('user signed up', 'paid'), '2021-11-01 00:00:00', '2021-11-14 00:00:00', {
          funnelsFilter: {
            funnelOrderType: 'unordered',
            exclusions: [{ kind: 'EventsNode', event: 'x 1 name with numbers 2', funnelFromStep: 0, funnelToStep: 1 }],
          },
        }),
        {
          events: [
            { id: 'user signed up', order: 0 },
            { id: 'paid', order: 1 },
          ],
          funnel_order_type: 'unordered',
          exclusions: [{ id: 'x 1 name with numbers 2', type: 'events', funnel_from_step: 0, funnel_to_step: 1 }],
          date_from: '2021-11-01 00:00:00',
          date_to: '2021-11-14 00:00:00',
        },
      ],
      [
        funnel(events('event1', 'event1'), '2020-05-01', '2020-05-07', { filterTestAccounts: true }),
        {
          events: [
            { id: 'event1', order: 0 },
            { id: 'event1', order: 1 },
          ],
          filter_test_accounts: true,
          date_from: '2020-05-01',
          date_to: '2020-05-07',
        },
      ],
      [
        funnel(events('step one', 'step two', 'step three'), '2021-06-07 00:00:00', '2021-06-13 23:59:59', {
          funnelsFilter: {
            funnelVizType: 'time_to_convert',
            funnelFromStep: 0,
            funnelToStep: 2,
            binCount: 3,
            funnelWindowInterval: 1,
            funnelWindowIntervalUnit: 'week',
          },
        }),
        {
          events: [
            { id: 'step one', order: 0 },
            { id: 'step two', order: 1 },
            { id: 'step three', order: 2 },
          ],
          funnel_viz_type: 'time_to_convert',
          funnel_from_step: 0,
          funnel_to_step: 2,
          bin_count: 3,
          funnel_window_interval: 1,
          funnel_window_interval_unit: 'week',
          date_from: '2021-06-07 00:00:00',
          date_to: '2021-06-13 23:59:59',
        },
      ],
      [
        funnel(events('step one', 'step two', 'step three'), '2021-05-01 00:00:00', '2021-05-21 00:00:00', {
          interval: 'week',
          funnelsFilter: { funnelVizType: 'trends', funnelToStep: 1 },
        }),
        {
          events: [
            { id: 'step one', order: 0 },
            { id: 'step two', order: 1 },
            { id: 'step three', order: 2 },
          ],
          funnel_viz_type: 'trends',
          funnel_to_step: 1,
          interval: 'week',
          date_from: '2021-05-01 00:00:00',
          date_to: '2021-05-21 00:00:00',
        },
      ],
      [
        funnel(events('sign up', 'play movie', 'buy'), '2020-01-01', '2020-01-08', {
          interval: 'day',
          breakdownFilter: { breakdown: '$browser' },
          funnelsFilter: { funnelVizType: 'trends' },
        }),
        { events: movieSteps, breakdown: '$browser', funnel_viz_type: 'trends', date_from: '2020-01-01', date_to: '2020-01-08' },
      ],
    ];
    for (const [query, legacy] of questions) {
      const viaQuery = await results({ kind: 'InsightVizNode', source: query });
      const viaLegacy = await server.bodyOf('POST', '/api/projects/1/insights/funnel/', 200, { body: { insight: 'FUNNELS', ...legacy } });
      assert.deepEqual(viaQuery, withoutPersonsUrls(viaLegacy.result), JSON.stringify(query));
      assert.ok(JSON.stringify(viaQuery).match(/"count":[1-9]|"bins":\[\[/), `a question with an answer: ${JSON.stringify(viaQuery)}`);
    }
  });

  test('the default date range is the last 7 days', async () => {
    const now = Date.now();
    const at = (daysAgo: number, minute: number) => new Date(now - daysAgo * 86_400_000 + minute * 60_000).toISOString();
    await capture(server, QUERY_TOKEN, [
      { event: 'recent start', distinct_id: 'recent_1', timestamp: at(3, 0) },
      { event: 'recent end', distinct_id: 'recent_1', timestamp: at(3, 1) },
      { event: 'recent start', distinct_id: 'recent_2', timestamp: at(10, 0) },
      { event: 'recent end', distinct_id: 'recent_2', timestamp: at(10, 1) },
    ]);
    const query = { kind: 'FunnelsQuery', series: events('recent start', 'recent end') };
    const response = await runQuery(server, query);
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(counts(response.body.results), [1, 1]);
    assert.match(response.body.resolved_date_range.date_from, /^\d{4}-\d{2}-\d{2}T00:00:00/);
    assert.ok(Date.parse(response.body.resolved_date_range.date_from) <= now - 7 * 86_400_000);
    const legacy = await server.bodyOf('POST', '/api/projects/1/insights/funnel/', 200, {
      body: {
        events: [
          { id: 'recent start', order: 0 },
          { id: 'recent end', order: 1 },
        ],
      },
    });
    assert.deepEqual(response.body.results, withoutPersonsUrls(legacy.result));
    assert.deepEqual(counts(await results({ ...query, dateRange: { date_from: '-14d' } })), [2, 2]);
  });

  test('the envelope; wrappers; /query/FunnelsQuery/; trailing slash and /api/environments/', async () => {
    const query = funnel(events('user signed up', 'paid'), '2020-01-01', '2020-01-14');
    const response = await runQuery(server, query);
    assert.deepEqual(Object.keys(response.body).sort(), [
      'cache_key',
      'isUdf',
      'is_cached',
      'last_refresh',
      'modifiers',
      'next_allowed_client_refresh',
      'resolved_date_range',
      'results',
      'timezone',
      'timings',
    ]);
    assert.equal(response.body.isUdf, false);
    assert.equal(response.body.timezone, 'UTC');
    assert.deepEqual(response.body.timings, []);
    assert.deepEqual(response.body.resolved_date_range, { date_from: '2020-01-01T00:00:00.000Z', date_to: '2020-01-14T23:59:59.999Z' });
    for (const wrapped of [
      { kind: 'InsightVizNode', source: query },
      { kind: 'DataTableNode', source: query },
    ]) {
      assert.deepEqual(await results(wrapped), response.body.results);
    }
    for (const path of ['/api/projects/1/query', '/api/environments/1/query/', '/api/environments/1/query', '/api/projects/1/query/FunnelsQuery/']) {
      const other = await server.post(path, { query });
      assert.equal(other.status, 200, `${path}: ${other.text}`);
      assert.deepEqual(other.body.results, response.body.results, path);
    }
    const asynchronous = await runQuery(server, query, { extra: { refresh: 'async' } });
    assert.equal(asynchronous.body.query_status.complete, true);
    assert.deepEqual(asynchronous.body.results, response.body.results);
  });

  test('scopes: query:read or insight:read; person:read alone is a 403', async () => {
    const query = funnel(events('user signed up', 'paid'), '2020-01-01', '2020-01-14');
    for (const scope of ['query:read', 'insight:read']) {
      const allowed = await runQuery(server, query, { key: keys[scope] });
      assert.equal(allowed.status, 200, scope);
      assert.deepEqual(counts(allowed.body.results), [1, 1]);
    }
    const denied = await runQuery(server, query, { key: keys['person:read'] });
    assert.deepEqual([denied.status, denied.body], [403, ERRORS.missingScope('query:read')]);
  });

  test('bad input: 400 naming the dotted path from the body root', async () => {
    const base = funnel(events('user signed up', 'paid'), '2020-01-01', '2020-01-14');
    const cases: Array<[unknown, string]> = [
      [{ ...base, series: events('user signed up') }, 'query.series'],
      [
        {
          ...base,
          series: [
            { kind: 'EventsNode', event: 'a' },
            { kind: 'DataWarehouseNode', table_name: 'x' },
          ],
        },
        'query.series.1.kind',
      ],
      [
        {
          ...base,
          series: [
            { kind: 'EventsNode', event: 'a', math: 'first_time_for_user' },
            { kind: 'EventsNode', event: 'b' },
          ],
        },
        'query.series.0.math',
      ],
      [{ ...base, dateRange: { date_from: 'whenever' } }, 'query.dateRange.date_from'],
      [{ ...base, interval: 'minute' }, 'query.interval'],
      [{ ...base, funnelsFilter: { funnelVizType: 'pie' } }, 'query.funnelsFilter.funnelVizType'],
      [{ ...base, funnelsFilter: { funnelWindowIntervalUnit: 'decade' } }, 'query.funnelsFilter.funnelWindowIntervalUnit'],
      [{ ...base, funnelsFilter: { funnelVizType: 'time_to_convert', funnelToStep: 2 } }, 'query.funnelsFilter.funnelToStep'],
      [
        { ...base, funnelsFilter: { exclusions: [{ kind: 'EventsNode', event: 'paid', funnelFromStep: 0, funnelToStep: 1 }] } },
        'query.funnelsFilter.exclusions.0',
      ],
      [{ ...base, funnelsFilter: { funnelAggregateByHogQL: 'properties.$session_id' } }, 'query.funnelsFilter.funnelAggregateByHogQL'],
      [{ ...base, breakdownFilter: { breakdown: 'x', breakdown_type: 'hogql' } }, 'query.breakdownFilter.breakdown_type'],
      [{ ...base, breakdownFilter: { breakdown: [99_999], breakdown_type: 'cohort' } }, 'query.breakdownFilter.breakdown'],
      [{ ...base, properties: [{ key: 'id', value: 99_999, type: 'cohort' }] }, 'query.properties'],
      [
        {
          ...base,
          series: [
            { kind: 'EventsNode', event: 'a' },
            { kind: 'ActionsNode', id: 99_999 },
          ],
        },
        'query.series',
      ],
      [{ ...base, funnelsFilter: { exclusions: [{ kind: 'ActionsNode', id: 99_999, funnelFromStep: 0, funnelToStep: 1 }] } }, 'query.funnelsFilter.exclusions'],
      [{ ...base, samplingFactor: 0.5 }, 'query.samplingFactor'],
      [{ kind: 'InsightVizNode', source: { ...base, funnelsFilter: { binCount: 'many' } } }, 'query.source.funnelsFilter.binCount'],
    ];
    for (const [query, attr] of cases) {
      const response = await runQuery(server, query);
      assert.equal(response.status, 400, `${JSON.stringify(query)}: ${response.text}`);
      assert.equal(response.body.type, 'validation_error');
      assert.equal(response.body.attr, attr, JSON.stringify(query));
    }
  });

  test("project isolation: another project's actions and cohorts are 400s naming the field; its events never count", async () => {
    const foreignAction = await server.post(`/api/projects/${foreign.id}/actions/`, { name: 'foreign', steps: [{ event: 'user signed up' }] });
    assert.equal(foreignAction.status, 201, foreignAction.text);
    const foreignCohort = await server.post(`/api/projects/${foreign.id}/cohorts/`, {
      name: 'foreign',
      filters: { properties: { type: 'AND', values: [{ key: 'key', value: 'value', type: 'person', operator: 'exact' }] } },
    });
    assert.equal(foreignCohort.status, 201, foreignCohort.text);
    const base = funnel(events('user signed up', 'paid'), '2020-01-01', '2020-01-14');
    for (const [query, attr] of [
      [
        {
          ...base,
          series: [
            { kind: 'EventsNode', event: 'user signed up' },
            { kind: 'ActionsNode', id: foreignAction.body.id },
          ],
        },
        'query.series',
      ],
      [{ ...base, breakdownFilter: { breakdown: [foreignCohort.body.id], breakdown_type: 'cohort' } }, 'query.breakdownFilter.breakdown'],
      [{ ...base, properties: [{ key: 'id', value: foreignCohort.body.id, type: 'cohort' }] }, 'query.properties'],
    ] as Array<[unknown, string]>) {
      const response = await runQuery(server, query);
      assert.equal(response.status, 400, `${JSON.stringify(query)}: ${response.text}`);
      assert.equal(response.body.attr, attr);
    }
    // Project 1 counts its own user_1 only; the foreign project its own foreign_user.
    assert.deepEqual(counts(await results(base)), [1, 1]);
    assert.deepEqual(counts((await runQuery(server, base, { project: foreign.id })).body.results), [1, 1]);
    const theirs = await runQuery(server, funnel(events('sign up', 'play movie'), '2020-01-01', '2020-01-08', { breakdownFilter: { breakdown: '$browser' } }), {
      project: foreign.id,
    });
    assert.deepEqual(
      theirs.body.results.map((list: Step[]) => [list[0]!.breakdown, counts(list)]),
      [[['Chrome'], [1, 0]]],
    );
    const scoped = await runQuery(server, base, { project: foreign.id, key: keys['query:read@1'] });
    assert.equal(scoped.status, 403);
  });

  test("a saved insight holding a FunnelsQuery computes the query API's results", async () => {
    const source = funnel(events('sign up', 'play movie', 'buy'), '2020-01-01', '2020-01-08', { breakdownFilter: { breakdown: '$browser' } });
    const query = { kind: 'InsightVizNode', source };
    const created = await server.bodyOf('POST', '/api/projects/1/insights/', 201, { body: { name: 'Movie funnel', query } });
    const computed = await server.bodyOf('GET', `/api/projects/1/insights/${created.id}/?refresh=true`);
    assert.deepEqual(computed.result, await results(query));
    assert.deepEqual(
      computed.result.map((list: Step[]) => counts(list)),
      [
        [1, 1, 1],
        [2, 1, 0],
      ],
    );
    assert.equal(computed.timezone, 'UTC');
    const broken = await server.bodyOf('POST', '/api/projects/1/insights/', 201, {
      body: { name: 'Broken funnel', query: { kind: 'InsightVizNode', source: { ...source, funnelsFilter: { funnelOrderType: 'sideways' } } } },
    });
    const refused = await server.get(`/api/projects/1/insights/${broken.id}/?refresh=true`);
    assert.equal(refused.status, 400, refused.text);
    assert.equal(refused.body.attr, 'query.source.funnelsFilter.funnelOrderType');
  });
});
