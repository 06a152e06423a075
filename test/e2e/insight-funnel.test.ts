import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { actorQuery, peopleIds } from '../support/actors.js';
import { sendBatch } from '../support/capture.js';
import { randomBytes } from 'node:crypto';
import { ERRORS, TallyServer, tempDataDir, type ApiResponse } from '../support/tally.js';

/**
 * `GET|POST /insights/funnel/`: PostHog's legacy funnel tests (posthog/queries/funnels/test/
 * test_funnel.py, conversion_time_cases.py, breakdown_cases.py, test_funnel_unordered.py,
 * test_funnel_trends.py, test_funnel_time_to_convert.py) restated with their numbers as F1–F19,
 * each dataset in a month of its own, captured through /batch. Every step's persons URLs are
 * followed: the converted persons of a step are exactly its count, the dropped-off persons the
 * count of the step before minus its own.
 */

const FUNNEL = '/api/projects/1/insights/funnel/';

function ev(event: string, distinctId: string, time: string, properties: Record<string, unknown> = {}) {
  return { event, distinct_id: distinctId, timestamp: time.endsWith('Z') ? time : `${time}Z`, properties };
}

const steps = (...names: string[]) => names.map((id, order) => ({ id, type: 'events', order }));

/** `funnel_window_days` 14 and a date range, as most of PostHog's cases have them. */
function funnelOf(events: unknown[], from: string, to: string, extra: Record<string, unknown> = {}) {
  return { insight: 'FUNNELS', events, date_from: from, date_to: to, ...extra };
}

describe('insights: funnel', () => {
  let server: TallyServer;
  let keys: Record<string, string>;
  let paid: number;
  let watched: number;
  let secondProject: { id: number; api_token: string };

  const get = (params: Record<string, unknown>, key?: string) => server.get(`${FUNNEL}?${actorQuery(params)}`, { key });

  async function result(params: Record<string, unknown>): Promise<any> {
    const response = await get(params);
    assert.equal(response.status, 200, response.text);
    return response.body.result;
  }

  const counts = (list: Array<{ count: number }>) => list.map((step) => step.count);

  async function followCount(url: string): Promise<number> {
    const response: ApiResponse = await server.get(url);
    assert.equal(response.status, 200, `${url}: ${response.text}`);
    return peopleIds(response).length;
  }

  /** Each step's converted persons are its count; its dropped-off persons the previous count minus its own. */
  async function assertStepActors(list: Array<{ count: number; converted_people_url: string; dropped_people_url: string | null }>) {
    for (const [index, step] of list.entries()) {
      assert.equal(await followCount(step.converted_people_url), step.count, `converted of step ${index}`);
      if (index === 0) assert.equal(step.dropped_people_url, null);
      else assert.equal(await followCount(step.dropped_people_url!), list[index - 1]!.count - step.count, `dropped before step ${index}`);
    }
  }

  async function stepPeople(list: Array<{ converted_people_url: string }>, index: number): Promise<string[]> {
    return peopleIds(await server.get(list[index]!.converted_people_url));
  }

  before(async () => {
    const projectToken = `phc_${randomBytes(16).toString('hex')}`;
    const personalApiKey = `phx_${randomBytes(20).toString('hex')}`;
    server = new TallyServer(tempDataDir('funnel-test-'), { TALLY_PROJECT_TOKEN: projectToken, TALLY_PERSONAL_API_KEY: personalApiKey });
    // The CLI makes projects and keys while no server holds the data directory.
    secondProject = server.createProject('Second');
    keys = {
      insightRead: server.createKey('insight:read'),
      insightWrite: server.createKey('insight:write'),
      personRead: server.createKey('person:read'),
      secondOnly: server.createKey('insight:read', [secondProject.id]),
    };
    await server.start();
    server.projectToken = projectToken;
    server.personalApiKey = personalApiKey;
    const action = async (name: string, label: string, projectId = 1) => {
      const response = await server.post(`/api/projects/${projectId}/actions/`, {
        name,
        steps: [{ event: '$autocapture', properties: [{ key: 'label', value: label, type: 'event' }] }],
      });
      assert.equal(response.status, 201, response.text);
      return response.body.id as number;
    };
    paid = await action('paid', 'pay');
    watched = await action('watched movie', 'movie');
    const pay = (id: string, time: string, properties: Record<string, unknown> = {}) => ev('$autocapture', id, time, { label: 'pay', ...properties });
    const movie = (id: string, time: string, properties: Record<string, unknown> = {}) => ev('$autocapture', id, time, { label: 'movie', ...properties });
    const signup = (id: string, time: string, properties: Record<string, unknown> = {}) => ev('user signed up', id, time, properties);

    const batch = [
      // F1 (February 2020): actions as steps; two distinct ids of one person.
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
      // F2 (March 2020): global property filters.
      signup('with_property', '2020-03-01T10:00:00', { $browser: 'Safari' }),
      pay('with_property', '2020-03-01T10:01:00', { $browser: 'Safari' }),
      signup('without_property', '2020-03-01T10:02:00'),
      pay('without_property', '2020-03-01T10:03:00'),
      signup('half_property', '2020-03-01T10:04:00', { $browser: 'Safari' }),
      pay('half_property', '2020-03-01T10:05:00'),
      // F3 (April 2020): properties of each step.
      signup('e_with_property', '2020-04-01T10:00:00', { $browser: 'Safari' }),
      pay('e_with_property', '2020-04-01T10:01:00', { $browser: 'Safari' }),
      movie('e_with_property', '2020-04-01T10:02:00'),
      signup('e_without_property', '2020-04-01T10:03:00'),
      pay('e_without_property', '2020-04-01T10:04:00', { $browser: 'Safari' }),
      signup('e_half_property', '2020-04-01T10:05:00'),
      pay('e_half_property', '2020-04-01T10:06:00'),
      movie('e_half_property', '2020-04-01T10:07:00'),
      // F4 (May 2020): test accounts.
      ev('event1', 'test_person', '2020-05-01T10:00:00', { $set: { email: 'test@posthog.com' } }),
      ev('event1', 'real_person', '2020-05-01T10:01:00'),
      // F5 (January 2020): the default 14-day window.
      signup('user_1', '2020-01-02T14:00:00'),
      ev('paid', 'user_1', '2020-01-10T14:00:00'),
      // F6 (June 2020): a step repeated.
      signup('stopped_after_signup1', '2020-06-01T10:00:00'),
      signup('stopped_after_signup1', '2020-06-01T11:00:00'),
      signup('stopped_after_signup2', '2020-06-01T10:00:00'),
      // F7 (May 2021): an exclusion over the whole funnel.
      signup('person1', '2021-05-01T01:00:00'),
      ev('paid', 'person1', '2021-05-01T02:00:00'),
      signup('person2', '2021-05-01T03:00:00'),
      ev('x 1 name with numbers 2', 'person2', '2021-05-01T03:30:00'),
      ev('paid', 'person2', '2021-05-01T04:00:00'),
      signup('person3', '2021-05-01T05:00:00'),
      ev('paid', 'person3', '2021-05-01T06:00:00'),
    ];
    // F8 (June 2021): exclusions between steps of a five-step funnel.
    const f8 = (id: string, events: Array<[string, string]>) => events.map(([event, time]) => ev(event, id, `2021-06-01T${time}:00`));
    batch.push(
      ...f8('f8_person1', [
        ['user signed up', '01:00'],
        ['$pageview', '02:00'],
        ['x', '03:00'],
        ['insight viewed', '04:00'],
        ['x', '04:30'],
        ['invite teammate', '05:00'],
        ['x', '05:30'],
        ['pageview2', '06:00'],
      ]),
      ...f8('f8_person2', [
        ['user signed up', '01:00'],
        ['$pageview', '02:00'],
        ['insight viewed', '04:00'],
        ['x', '04:30'],
        ['invite teammate', '05:00'],
        ['x', '05:30'],
        ['pageview2', '06:00'],
      ]),
      ...f8('f8_person3', [
        ['user signed up', '01:00'],
        ['x', '01:30'],
        ['$pageview', '02:00'],
        ['insight viewed', '04:00'],
        ['invite teammate', '05:00'],
        ['x', '05:30'],
        ['pageview2', '06:00'],
      ]),
    );
    // F9 (July 2021): four steps of the same event.
    const journey = (id: string, day: string, events: string[]) =>
      events.map((event, minute) => ev(event, id, `2021-07-${day}T10:${String(minute).padStart(2, '0')}:00`));
    batch.push(
      ...journey('f9_signup1', '01', ['user signed up']),
      ...journey('f9_pageview1', '01', ['user signed up', '$pageview']),
      ...journey('f9_pageview2', '01', ['user signed up', '$pageview', 'blaah blaa', '$pageview']),
      ...journey('f9_pageview3', '01', ['user signed up', '$pageview', 'blaah blaa', '$pageview', '$pageview', 'blaah blaa']),
      ...journey('f9_pageview4', '01', ['user signed up', '$pageview', '$pageview', '$pageview', '$pageview']),
    );
    // F10 (August 2021): steps told apart by their properties.
    const aloha = (url: string) => ({ $current_url: url });
    const f10 = (id: string, events: Array<[string, Record<string, unknown>?]>) =>
      events.map(([event, properties], minute) => ev(event, id, `2021-08-01T10:${String(minute).padStart(2, '0')}:00`, properties));
    batch.push(
      ...f10('f10_signup1', [['user signed up']]),
      ...f10('f10_pageview1', [['user signed up'], ['$pageview', aloha('aloha.com')]]),
      ...f10('f10_pageview2', [['user signed up'], ['$pageview', aloha('aloha.com')], ['blaah blaa', aloha('aloha.com')], ['$pageview', aloha('aloha2.com')]]),
      ...f10('f10_pageview3', [
        ['user signed up'],
        ['$pageview', aloha('aloha.com')],
        ['$pageview', aloha('aloha2.com')],
        ['$pageview', aloha('aloha2.com')],
        ['blaah blaa'],
      ]),
      ...f10('f10_pageview4', [
        ['user signed up'],
        ['$pageview', aloha('aloha.com')],
        ['blaah blaa'],
        ['$pageview', aloha('aloha2.com')],
        ['$pageview', aloha('aloha.com')],
        ['$pageview', aloha('aloha2.com')],
      ]),
    );
    // F11 (September 2021) and F12 (October 2021): conversion windows of 7 days and of 15 seconds.
    for (let i = 0; i < 25; i += 1) {
      batch.push(
        ev('step one', `f11_user_${i}`, '2021-09-01T00:00:00'),
        ev('step two', `f11_user_${i}`, i < 10 ? '2021-09-02T00:00:00' : '2021-09-10T00:00:00'),
      );
      batch.push(
        ev('step one', `f12_user_${i}`, '2021-10-01T00:00:00'),
        ev('step two', `f12_user_${i}`, i < 10 ? '2021-10-01T00:00:10' : '2021-10-01T00:00:20'),
      );
    }
    batch.push(
      // F13 (November 2021): an exclusion after the first step when the last never comes.
      signup('f13_person1', '2021-11-01T01:00:00'),
      ev('paid', 'f13_person1', '2021-11-01T02:00:00'),
      signup('f13_person2', '2021-11-01T03:00:00'),
      ev('x', 'f13_person2', '2021-11-01T03:30:00'),
      ev('paid', 'f13_person2', '2021-11-01T04:00:00'),
      signup('f13_person3', '2021-11-01T05:00:00'),
      ev('x', 'f13_person3', '2021-11-01T06:00:00'),
      signup('f13_person4', '2021-11-01T07:00:00'),
      ev('x', 'f13_person4', '2021-11-02T08:00:00'),
      // F14 (December 2021): unordered conversion times, averaged over every completion.
      signup('f14_signup1', '2021-12-02T00:00:00'),
      ev('$pageview', 'f14_pageview1', '2021-12-02T00:00:00'),
      signup('f14_pageview1', '2021-12-02T01:00:00'),
      ev('insight viewed', 'f14_insightview', '2021-12-02T00:00:00'),
      signup('f14_insightview', '2021-12-02T02:00:00'),
      ev('$pageview', 'f14_insightview', '2021-12-02T04:00:00'),
      ev('$pageview', 'f14_insightview', '2021-12-03T00:00:00'),
      ev('insight viewed', 'f14_insightview', '2021-12-03T03:00:00'),
      signup('f14_insightview', '2021-12-03T06:00:00'),
    );
    // F15 (January 2022): conversion times of every step.
    const movieFunnel = (id: string, events: Array<[string, string]>, properties: Record<string, unknown> = {}) =>
      events.map(([event, time]) => ev(event, id, time, properties));
    batch.push(
      ...movieFunnel('f15_person1', [
        ['sign up', '2022-01-01T12:00:00'],
        ['play movie', '2022-01-01T13:00:00'],
        ['buy', '2022-01-01T15:00:00'],
      ]),
      ...movieFunnel('f15_person2', [
        ['sign up', '2022-01-02T14:00:00'],
        ['play movie', '2022-01-02T16:00:00'],
      ]),
      ...movieFunnel('f15_person3', [
        ['sign up', '2022-01-02T14:00:00'],
        ['play movie', '2022-01-02T16:00:00'],
        ['buy', '2022-01-02T17:00:00'],
      ]),
    );
    // F16 (February 2022): completed once, then two incomplete tries.
    batch.push(
      ...movieFunnel('f16_person1', [
        ['user signed up', '2022-02-01T01:00:00'],
        ['$pageview', '2022-02-01T02:00:00'],
        ['something else', '2022-02-01T03:00:00'],
        ['user signed up', '2022-02-03T04:00:00'],
        ['$pageview', '2022-02-03T05:00:00'],
        ['user signed up', '2022-02-04T07:00:00'],
        ['$pageview', '2022-02-04T10:00:00'],
      ]),
    );
    // F17 (March 2022 on): breakdowns.
    batch.push(
      ...movieFunnel(
        'b_person1',
        [
          ['sign up', '2022-03-01T12:00:00'],
          ['play movie', '2022-03-01T13:00:00'],
          ['buy', '2022-03-01T15:00:00'],
        ],
        { $browser: 'Chrome' },
      ),
      ...movieFunnel(
        'b_person2',
        [
          ['sign up', '2022-03-02T14:00:00'],
          ['play movie', '2022-03-02T16:00:00'],
        ],
        { $browser: 'Safari' },
      ),
      ...movieFunnel('b_person3', [['sign up', '2022-03-02T14:00:00']], { $browser: 'Safari' }),
      ...movieFunnel('b_person4', [['sign up', '2022-03-02T14:00:00']], { $browser: 'random' }),
      ...movieFunnel('b_person5', [['sign up', '2022-03-02T15:00:00']], { $browser: 'another one' }),
      // Person properties (April 2022).
      ev('sign up', 'p_person1', '2022-04-01T12:00:00', { $set: { $browser: 'Chrome' } }),
      ev('play movie', 'p_person1', '2022-04-01T13:00:00'),
      ev('buy', 'p_person1', '2022-04-01T15:00:00'),
      ev('sign up', 'p_person2', '2022-04-02T14:00:00', { $set: { $browser: 'Safari' } }),
      ev('play movie', 'p_person2', '2022-04-02T16:00:00'),
      // Step attribution (May 2022).
      ev('sign up', 's_person1', '2022-05-01T12:00:00', { $browser: 'Chrome' }),
      ev('buy', 's_person1', '2022-05-01T13:00:00'),
      ev('sign up', 's_person2', '2022-05-01T13:00:00'),
      ev('sign up', 's_person3', '2022-05-02T14:00:00', { $browser: 'Mac' }),
      ev('sign up', 's_person4', '2022-05-02T15:00:00', { $browser: 0 }),
      ev('buy', 's_person4', '2022-05-02T16:00:00', { $browser: 'alakazam' }),
      // Two properties (June 2022).
      ...movieFunnel(
        'm_person1',
        [
          ['sign up', '2022-06-01T12:00:00'],
          ['play movie', '2022-06-01T13:00:00'],
          ['buy', '2022-06-01T15:00:00'],
        ],
        { $browser: 'Chrome', $browser_version: 95 },
      ),
      ...movieFunnel(
        'm_person2',
        [
          ['sign up', '2022-06-02T14:00:00'],
          ['play movie', '2022-06-02T16:00:00'],
        ],
        { $browser: 'Safari', $browser_version: 15 },
      ),
      ...movieFunnel('m_person3', [['sign up', '2022-06-02T14:00:00']], { $browser: 'Safari', $browser_version: 14 }),
      // Cohorts (July 2022).
      ev('sign up', 'c_person1', '2022-07-02T12:00:00', { $set: { key: 'value' } }),
      ev('sign up', 'c_person2', '2022-07-02T13:00:00'),
      ev('play movie', 'c_person2', '2022-07-02T14:00:00'),
      // Groups (August 2022): two persons of one company.
      ev('sign up', 'g_person1', '2022-08-01T10:00:00', { $groups: { company: 'acme' } }),
      ev('sign up', 'g_person2', '2022-08-01T11:00:00', { $groups: { company: 'acme' } }),
      ev('play movie', 'g_person2', '2022-08-01T12:00:00', { $groups: { company: 'acme' } }),
      ev('sign up', 'g_person3', '2022-08-01T12:00:00', { $groups: { company: 'globex' } }),
      ev('$groupidentify', 'g_person1', '2022-08-01T09:00:00', { $group_type: 'company', $group_key: 'acme', $group_set: { industry: 'tech' } }),
    );
    // F18 (May 2021): funnel trends, seven persons over a week.
    const trend = (id: string, events: Array<[string, string]>) => events.map(([event, time]) => ev(event, id, time));
    batch.push(
      ...trend('user_one', [
        ['step one', '2021-05-01T00:00:00'],
        ['step two', '2021-05-03T00:00:00'],
        ['step three', '2021-05-05T00:00:00'],
      ]),
      ...trend('user_two', [
        ['step one', '2021-05-02T00:00:00'],
        ['step two', '2021-05-04T00:00:00'],
      ]),
      ...trend('user_three', [['step one', '2021-05-06T00:00:00']]),
      ...trend('user_four', [['step none', '2021-05-06T00:00:00']]),
      ...trend('user_five', [
        ['step one', '2021-05-01T01:00:00'],
        ['step two', '2021-05-01T02:00:00'],
        ['step three', '2021-05-01T03:00:00'],
      ]),
      ...trend('user_six', [
        ['step one', '2021-05-01T00:00:00'],
        ['step two', '2021-05-03T00:00:00'],
        ['step three', '2021-05-05T00:00:00'],
      ]),
      ...trend('user_seven', [
        ['step one', '2021-05-02T00:00:00'],
        ['step two', '2021-05-04T00:00:00'],
      ]),
      // F19 (June 2021): time to convert.
      ...trend('user a', [
        ['step one', '2021-06-08T18:00:00'],
        ['step two', '2021-06-08T19:00:00'],
        ['step three', '2021-06-08T21:00:00'],
      ]),
      ...trend('user b', [
        ['step one', '2021-06-09T13:00:00'],
        ['step two', '2021-06-09T13:37:00'],
      ]),
      ...trend('user c', [
        ['step one', '2021-06-11T07:00:00'],
        ['step two', '2021-06-12T06:00:00'],
      ]),
    );
    await sendBatch(server, batch);
  });
  after(() => server.dispose());

  test('F1: events and actions as steps; a person counts once across their distinct ids', async () => {
    const funnel = funnelOf(steps('user signed up'), '2020-02-01', '2020-02-07', {
      actions: [
        { id: paid, type: 'actions', order: 1 },
        { id: watched, type: 'actions', order: 2 },
      ],
      funnel_window_days: 14,
    });
    const list = await result(funnel);
    assert.deepEqual(counts(list), [4, 2, 1]);
    assert.deepEqual(
      list.map((step: any) => [step.action_id, step.name, step.custom_name, step.order, step.type, step.people]),
      [
        ['user signed up', 'user signed up', null, 0, 'events', []],
        [paid, 'paid', null, 1, 'actions', []],
        [watched, 'watched movie', null, 2, 'actions', []],
      ],
    );
    assert.deepEqual(
      list.map((step: any) => [step.average_conversion_time, step.median_conversion_time]),
      [
        [null, null],
        [60, 60],
        [60, 60],
      ],
    );
    await assertStepActors(list);
    const [merged] = (await server.get(list[2].converted_people_url)).body.results[0].people;
    assert.deepEqual([...merged.distinct_ids].sort(), ['completed_movie', 'had_anonymous_id']);
    // Newest person first: wrong_order was created last.
    assert.deepEqual(peopleIds(await server.get(list[1].dropped_people_url)), ['wrong_order', 'stopped_after_signup']);
  });

  test("F2, F3: global property filters, and each step's own", async () => {
    const actions = [
      { id: paid, type: 'actions', order: 1 },
      { id: watched, type: 'actions', order: 2 },
    ];
    const global = await result(
      funnelOf(steps('user signed up'), '2020-03-01', '2020-03-07', { actions, properties: [{ key: '$browser', value: 'Safari', type: 'event' }] }),
    );
    assert.deepEqual(counts(global), [2, 1, 0]);
    await assertStepActors(global);
    const perStep = await result(
      funnelOf(
        [
          {
            id: 'user signed up',
            type: 'events',
            order: 0,
            properties: [
              { key: '$browser', value: 'Safari' },
              { key: '$browser', operator: 'is_not', value: 'Chrome' },
            ],
          },
        ],
        '2020-04-01',
        '2020-04-07',
        {
          actions: [
            { id: paid, type: 'actions', order: 1, properties: [{ key: '$browser', value: 'Safari' }] },
            { id: watched, type: 'actions', order: 2, properties: [{ key: '$browser', value: 'Firefox' }] },
          ],
        },
      ),
    );
    assert.deepEqual(counts(perStep), [1, 1, 0]);
    await assertStepActors(perStep);
  });

  test("F4: filter_test_accounts leaves out the project's test accounts", async () => {
    const patched = await server.patch('/api/projects/1/', {
      test_account_filters: [{ key: 'email', value: '@posthog.com', operator: 'not_icontains', type: 'person' }],
    });
    assert.equal(patched.status, 200, patched.text);
    const funnel = funnelOf(steps('event1'), '2020-05-01', '2020-05-07');
    assert.deepEqual(counts(await result(funnel)), [2]);
    const filtered = await result({ ...funnel, filter_test_accounts: true });
    assert.deepEqual(counts(filtered), [1]);
    assert.deepEqual(await stepPeople(filtered, 0), ['real_person']);
  });

  test('F5, F6: the default window is 14 days; a repeated step needs a second event', async () => {
    const defaultWindow = await result(funnelOf(steps('user signed up', 'paid'), '2020-01-01', '2020-01-14'));
    assert.deepEqual(counts(defaultWindow), [1, 1]);
    assert.equal(defaultWindow[1].average_conversion_time, 691_200);
    const repeated = await result(funnelOf(steps('user signed up', 'user signed up'), '2020-06-01', '2020-06-07', { funnel_window_days: 14 }));
    assert.deepEqual(counts(repeated), [2, 1]);
    assert.deepEqual(await stepPeople(repeated, 1), ['stopped_after_signup1']);
    // funnel_window_days wins over an interval and unit; two weeks are 14 days.
    const twoWeeks = await result(
      funnelOf(steps('user signed up', 'user signed up'), '2020-06-01', '2020-06-07', { funnel_window_interval: 2, funnel_window_interval_unit: 'week' }),
    );
    assert.deepEqual(counts(twoWeeks), [2, 1]);
    const overridden = await result(
      funnelOf(steps('user signed up', 'user signed up'), '2020-06-01', '2020-06-07', {
        funnel_window_days: 14,
        funnel_window_interval: 1,
        funnel_window_interval_unit: 'second',
      }),
    );
    assert.deepEqual(counts(overridden), [2, 1]);
  });

  test('F7: an exclusion between the steps drops the person from every step (unordered: from the excluded attempt only)', async () => {
    const funnel = funnelOf(steps('user signed up', 'paid'), '2021-05-01 00:00:00', '2021-05-14 00:00:00', {
      funnel_window_days: 14,
      exclusions: [{ id: 'x 1 name with numbers 2', type: 'events', funnel_from_step: 0, funnel_to_step: 1 }],
    });
    const list = await result(funnel);
    assert.deepEqual(counts(list), [2, 2]);
    assert.deepEqual(await stepPeople(list, 0), ['person3', 'person1']);
    await assertStepActors(list);
    // Unordered: person2's attempt from "paid" has no exclusion after it, so they count once.
    const unordered = await result({ ...funnel, funnel_order_type: 'unordered' });
    assert.deepEqual(counts(unordered), [3, 2]);
    assert.deepEqual(
      unordered.map((step: any) => [step.action_id, step.name]),
      [
        [null, 'Completed 1 step'],
        [null, 'Completed 2 steps'],
      ],
    );
    await assertStepActors(unordered);
  });

  test('F8: exclusions between later steps, and over several steps', async () => {
    const funnel = (from: number, to: number) =>
      funnelOf(steps('user signed up', '$pageview', 'insight viewed', 'invite teammate', 'pageview2'), '2021-06-01 00:00:00', '2021-06-14 00:00:00', {
        exclusions: [{ id: 'x', type: 'events', funnel_from_step: from, funnel_to_step: to }],
      });
    const expected: Array<[number, number, string[]]> = [
      [0, 1, ['f8_person2', 'f8_person1']],
      [1, 2, ['f8_person3', 'f8_person2']],
      [2, 3, ['f8_person3']],
      [3, 4, []],
      [1, 3, ['f8_person3']],
    ];
    for (const [from, to, people] of expected) {
      const list = await result(funnel(from, to));
      assert.deepEqual([list[0].count, list[4].count], [people.length, people.length], `${from}→${to}`);
      assert.deepEqual(await stepPeople(list, 0), people, `${from}→${to}`);
      await assertStepActors(list);
    }
  });

  test('F9: the same event as four steps; strict funnels break on any other event', async () => {
    const funnel = funnelOf(steps('user signed up', '$pageview', '$pageview', '$pageview', '$pageview'), '2021-07-01', '2021-07-07');
    const list = await result(funnel);
    assert.deepEqual(counts(list), [5, 4, 3, 2, 1]);
    assert.deepEqual(await stepPeople(list, 4), ['f9_pageview4']);
    await assertStepActors(list);
    const strict = await result({ ...funnel, funnel_order_type: 'strict' });
    assert.deepEqual(counts(strict), [5, 4, 1, 1, 1]);
    await assertStepActors(strict);
  });

  test('F10: steps of one event told apart by their properties', async () => {
    const list = await result(
      funnelOf(
        [
          { id: 'user signed up', order: 0 },
          { id: '$pageview', order: 1, properties: { $current_url: 'aloha.com' } },
          { id: '$pageview', order: 2, properties: { $current_url: 'aloha2.com' } },
          { id: '$pageview', order: 3, properties: { $current_url: 'aloha2.com' } },
          { id: '$pageview', order: 4 },
        ],
        '2021-08-01',
        '2021-08-07',
        { funnel_window_days: 14 },
      ),
    );
    assert.deepEqual(counts(list), [5, 4, 3, 2, 0]);
    assert.deepEqual(await stepPeople(list, 3), ['f10_pageview4', 'f10_pageview3']);
    await assertStepActors(list);
  });

  test('F11, F12: conversion windows in days and in seconds', async () => {
    const days = await result(
      funnelOf(steps('step one', 'step two', 'step three'), '2021-09-01 00:00:00', '2021-09-14 00:00:00', { funnel_window_days: 7, interval: 'day' }),
    );
    assert.deepEqual(counts(days), [25, 10, 0]);
    assert.deepEqual((await stepPeople(days, 1)).sort(), Array.from({ length: 10 }, (_, i) => `f11_user_${i}`).sort());
    await assertStepActors(days);
    const seconds = await result(
      funnelOf(steps('step one', 'step two', 'step three'), '2021-10-01 00:00:00', '2021-10-14 00:00:00', {
        funnel_window_interval: 15,
        funnel_window_interval_unit: 'second',
      }),
    );
    assert.deepEqual(counts(seconds), [25, 10, 0]);
    assert.equal(seconds[1].average_conversion_time, 10);
    await assertStepActors(seconds);
  });

  test('F13: an exclusion inside the window drops a person even when the last step never comes', async () => {
    const list = await result(
      funnelOf(steps('user signed up', 'paid'), '2021-11-01 00:00:00', '2021-11-14 00:00:00', {
        funnel_window_days: 1,
        exclusions: [{ id: 'x', type: 'events', funnel_from_step: 0, funnel_to_step: 1 }],
      }),
    );
    assert.deepEqual(counts(list), [2, 1]);
    assert.deepEqual(await stepPeople(list, 0), ['f13_person4', 'f13_person1']);
    assert.deepEqual(await stepPeople(list, 1), ['f13_person1']);
    await assertStepActors(list);
  });

  test('F14: unordered conversion times average every completion of a person', async () => {
    const list = await result(
      funnelOf(steps('user signed up', '$pageview', 'insight viewed'), '2021-12-01 00:00:00', '2021-12-07 23:59:59', {
        funnel_window_days: '1',
        funnel_order_type: 'unordered',
      }),
    );
    assert.deepEqual(
      list.map((step: any) => step.name),
      ['Completed 1 step', 'Completed 2 steps', 'Completed 3 steps'],
    );
    assert.deepEqual(counts(list), [3, 2, 1]);
    // 1 hour for one person, (2 + 3) / 2 hours for the other; then (2 + 3) / 2 hours.
    assert.deepEqual(
      list.map((step: any) => step.average_conversion_time),
      [null, 6300, 9000],
    );
    await assertStepActors(list);
  });

  test('F15, F16: average and median conversion times; incomplete tries are not averaged', async () => {
    const list = await result(funnelOf(steps('sign up', 'play movie', 'buy'), '2022-01-01', '2022-01-08', { funnel_window_days: 7 }));
    assert.deepEqual(counts(list), [3, 3, 2]);
    assert.deepEqual(
      list.map((step: any) => [step.average_conversion_time, step.median_conversion_time]),
      [
        [null, null],
        [6000, 7200],
        [5400, 5400],
      ],
    );
    await assertStepActors(list);
    const tries = await result(
      funnelOf(steps('user signed up', '$pageview', 'something else'), '2022-02-01 00:00:00', '2022-02-14 00:00:00', { funnel_window_days: 1 }),
    );
    assert.deepEqual(counts(tries), [1, 1, 1]);
    assert.deepEqual([tries[1].average_conversion_time, tries[1].median_conversion_time], [3600, 3600]);
  });

  test('F17: event breakdowns, ranked values and Other', async () => {
    const funnel = funnelOf(steps('sign up', 'play movie', 'buy'), '2022-03-01', '2022-03-08', {
      funnel_window_days: 7,
      breakdown_type: 'event',
      breakdown: '$browser',
    });
    const series = await result(funnel);
    assert.deepEqual(
      series.map((list: any[]) => [list[0].breakdown, list[0].breakdown_value, counts(list)]),
      [
        [['Chrome'], ['Chrome'], [1, 1, 1]],
        [['Safari'], ['Safari'], [2, 1, 0]],
        [['random'], ['random'], [1, 0, 0]],
        [['another one'], ['another one'], [1, 0, 0]],
      ],
    );
    assert.deepEqual(
      series[0].map((step: any) => [step.average_conversion_time, step.median_conversion_time]),
      [
        [null, null],
        [3600, 3600],
        [7200, 7200],
      ],
    );
    assert.deepEqual([series[1][1].average_conversion_time, series[1][1].median_conversion_time], [7200, 7200]);
    for (const list of series) await assertStepActors(list);
    assert.deepEqual(await stepPeople(series[1], 0), ['b_person3', 'b_person2']);
    // breakdown_limit 1: Chrome and Safari tie on events; the greater value stays, the rest is Other.
    const limited = await result({ ...funnel, breakdown: ['$browser'], breakdown_limit: 1 });
    assert.deepEqual(
      limited.map((list: any[]) => [list[0].breakdown, counts(list)]),
      [
        [['Other'], [3, 1, 1]],
        [['Safari'], [2, 1, 0]],
      ],
    );
    assert.deepEqual([limited[0][1].average_conversion_time, limited[0][2].average_conversion_time], [3600, 7200]);
    assert.deepEqual(await stepPeople(limited[0], 0), ['b_person5', 'b_person4', 'b_person1']);
    for (const list of limited) await assertStepActors(list);
    // Funnel trends break down into one series per top value, by value.
    const trends = await result({ ...funnel, funnel_viz_type: 'trends', interval: 'day' });
    assert.deepEqual(
      trends.map((series: any) => [series.breakdown_value, series.data]),
      [
        [['Chrome'], [100, 0, 0, 0, 0, 0, 0, 0]],
        [['Safari'], [0, 0, 0, 0, 0, 0, 0, 0]],
        [['another one'], [0, 0, 0, 0, 0, 0, 0, 0]],
        [['random'], [0, 0, 0, 0, 0, 0, 0, 0]],
      ],
    );
  });

  test('F17: person, multi-property and cohort breakdowns', async () => {
    const person = await result(
      funnelOf(steps('sign up', 'play movie', 'buy'), '2022-04-01', '2022-04-08', { funnel_window_days: 7, breakdown_type: 'person', breakdown: ['$browser'] }),
    );
    assert.deepEqual(
      person.map((list: any[]) => [list[0].breakdown, counts(list), list[1].average_conversion_time]),
      [
        [['Chrome'], [1, 1, 1], 3600],
        [['Safari'], [1, 1, 0], 7200],
      ],
    );
    for (const list of person) await assertStepActors(list);
    const multi = await result(
      funnelOf(steps('sign up', 'play movie', 'buy'), '2022-06-01', '2022-06-08', {
        funnel_window_days: 7,
        breakdown_type: 'event',
        breakdown: ['$browser', '$browser_version'],
      }),
    );
    assert.deepEqual(
      multi.map((list: any[]) => [list[0].breakdown, counts(list)]),
      [
        [
          ['Chrome', '95'],
          [1, 1, 1],
        ],
        [
          ['Safari', '15'],
          [1, 1, 0],
        ],
        [
          ['Safari', '14'],
          [1, 0, 0],
        ],
      ],
    );
    for (const list of multi) await assertStepActors(list);
    const cohort = await server.post('/api/projects/1/cohorts/', {
      name: 'test_cohort',
      filters: { properties: { type: 'AND', values: [{ key: 'key', value: 'value', type: 'person', operator: 'exact' }] } },
    });
    assert.equal(cohort.status, 201, cohort.text);
    const cohorts = await result(
      funnelOf(steps('sign up', 'play movie', 'buy'), '2022-07-01', '2022-07-08', {
        funnel_window_days: 7,
        breakdown_type: 'cohort',
        breakdown: ['all', cohort.body.id],
      }),
    );
    assert.deepEqual(
      cohorts.map((list: any[]) => [list[0].breakdown, list[0].breakdown_value, counts(list)]),
      [
        ['all users', 0, [2, 1, 0]],
        ['test_cohort', cohort.body.id, [1, 0, 0]],
      ],
    );
    for (const list of cohorts) await assertStepActors(list);
    assert.deepEqual(await stepPeople(cohorts[1], 0), ['c_person1']);
  });

  test('F17: step attribution keeps the value of that step (persons without it drop out)', async () => {
    const attributed = await result(
      funnelOf(steps('sign up', 'buy'), '2022-05-01', '2022-05-08', {
        funnel_window_days: 7,
        breakdown_type: 'event',
        breakdown: ['$browser'],
        breakdown_attribution_type: 'step',
        breakdown_attribution_value: '1',
      }),
    );
    assert.deepEqual(attributed.map((list: any[]) => [list[0].breakdown, counts(list), list[1].average_conversion_time]).sort(), [
      [[''], [1, 1], 3600],
      [['alakazam'], [1, 1], 3600],
    ]);
    for (const list of attributed) await assertStepActors(list);
    // First touch (the default): the first non-empty value of any step.
    const firstTouch = await result(
      funnelOf(steps('sign up', 'buy'), '2022-05-01', '2022-05-08', { funnel_window_days: 7, breakdown_type: 'event', breakdown: '$browser' }),
    );
    assert.deepEqual(
      firstTouch.map((list: any[]) => [list[0].breakdown, counts(list)]),
      [
        [['Chrome'], [1, 1]],
        [['0'], [1, 1]],
        [[''], [1, 0]],
        [['Mac'], [1, 0]],
      ],
    );
    const lastTouch = await result(
      funnelOf(steps('sign up', 'buy'), '2022-05-01', '2022-05-08', {
        funnel_window_days: 7,
        breakdown_type: 'event',
        breakdown: '$browser',
        breakdown_attribution_type: 'last_touch',
      }),
    );
    assert.deepEqual(lastTouch.map((list: any[]) => list[0].breakdown[0]).sort(), ['', 'Chrome', 'Mac', 'alakazam']);
  });

  test('aggregation_group_type_index counts groups instead of persons', async () => {
    const funnel = funnelOf(steps('sign up', 'play movie'), '2022-08-01', '2022-08-07', { aggregation_group_type_index: 0 });
    assert.deepEqual(counts(await result(funnel)), [2, 1]);
    assert.deepEqual(counts(await result({ ...funnel, aggregation_group_type_index: undefined })), [3, 1]);
    // A group property breakdown keeps its values as strings.
    const byIndustry = await result({
      ...funnel,
      aggregation_group_type_index: undefined,
      breakdown: 'industry',
      breakdown_type: 'group',
      breakdown_group_type_index: 0,
    });
    assert.deepEqual(
      byIndustry.map((list: any[]) => [list[0].breakdown, list[0].breakdown_value, counts(list)]),
      [
        ['tech', 'tech', [2, 1]],
        ['', '', [1, 0]],
      ],
    );
    for (const list of byIndustry) await assertStepActors(list);
  });

  test('F18: funnel trends, conversion per entrance period', async () => {
    const funnel = funnelOf(steps('step one', 'step two', 'step three'), '2021-05-01 00:00:00', '2021-05-07 00:00:00', {
      funnel_window_days: 7,
      funnel_viz_type: 'trends',
      interval: 'day',
    });
    const [series] = await result(funnel);
    assert.deepEqual(series, {
      count: 7,
      data: [100, 0, 0, 0, 0, 0, 0],
      days: ['2021-05-01', '2021-05-02', '2021-05-03', '2021-05-04', '2021-05-05', '2021-05-06', '2021-05-07'],
      labels: ['1-May-2021', '2-May-2021', '3-May-2021', '4-May-2021', '5-May-2021', '6-May-2021', '7-May-2021'],
    });
    const persons = async (period: string, dropOff: boolean) =>
      peopleIds(await server.get(`/api/projects/1/persons/funnel/?${actorQuery({ ...funnel, entrance_period_start: period, drop_off: dropOff })}`));
    // Newest person first: user_five's first event came an hour after the others'.
    assert.deepEqual(await persons('2021-05-01 00:00:00', false), ['user_five', 'user_six', 'user_one']);
    assert.deepEqual(await persons('2021-05-01 00:00:00', true), []);
    assert.deepEqual(await persons('2021-05-02 00:00:00', true), ['user_seven', 'user_two']);
    assert.deepEqual(await persons('2021-05-06 00:00:00', true), ['user_three']);
    // The display alone asks for trends; to step 1 converts both persons of 2 May.
    const [toStepOne] = await result({ ...funnel, funnel_viz_type: undefined, display: 'ActionsLineGraph', funnel_to_step: 1 });
    assert.deepEqual(toStepOne.data, [100, 100, 0, 0, 0, 0, 0]);
    const [weeks] = await result({ ...funnel, interval: 'week' });
    assert.deepEqual(
      [weeks.days, weeks.data],
      [
        ['2021-04-25', '2021-05-02'],
        [100, 0],
      ],
    );
    assert.deepEqual(await persons('2021-04-25 00:00:00', false), []);
    const weekly = peopleIds(
      await server.get(
        `/api/projects/1/persons/funnel/?${actorQuery({ ...funnel, interval: 'week', entrance_period_start: '2021-04-25 00:00:00', drop_off: false })}`,
      ),
    );
    assert.deepEqual(weekly, ['user_five', 'user_six', 'user_one']);
  });

  test('F19: time to convert, automatic and custom bins', async () => {
    const funnel = funnelOf(steps('step one', 'step two', 'step three'), '2021-06-07 00:00:00', '2021-06-13 23:59:59', {
      funnel_viz_type: 'time_to_convert',
      funnel_from_step: 0,
      funnel_to_step: 1,
      funnel_window_days: 7,
    });
    assert.deepEqual(await result(funnel), {
      bins: [
        [2220, 2],
        [42510, 0],
        [82800, 1],
      ],
      average_conversion_time: 29540,
    });
    assert.deepEqual(await result({ ...funnel, bin_count: 7 }), {
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
    // The binned actors are the actors who reached the to step.
    const reached = await followCount(`/api/projects/1/persons/funnel/?${actorQuery({ ...funnel, funnel_viz_type: 'steps', funnel_step: 2 })}`);
    assert.equal(reached, 3);
    assert.deepEqual(await result({ ...funnel, date_from: '2019-01-01', date_to: '2019-01-02' }), { bins: [], average_conversion_time: null });
  });

  test('the envelope; POST bodies; trailing slash and /api/environments/', async () => {
    const funnel = funnelOf(steps('user signed up', 'paid'), '2020-01-01', '2020-01-14');
    const response = await get(funnel);
    assert.equal(response.status, 200);
    assert.deepEqual(Object.keys(response.body).sort(), ['is_cached', 'last_refresh', 'result', 'timezone']);
    assert.equal(response.body.timezone, 'UTC');
    assert.equal(response.body.is_cached, false);
    assert.ok(!Number.isNaN(Date.parse(response.body.last_refresh)));
    const posted = await server.post(FUNNEL, funnel);
    assert.equal(posted.status, 200, posted.text);
    assert.deepEqual(counts(posted.body.result), [1, 1]);
    for (const path of ['/api/projects/1/insights/funnel', '/api/environments/1/insights/funnel/']) {
      const other = await server.get(`${path}?${actorQuery(funnel)}`);
      assert.equal(other.status, 200, path);
      assert.deepEqual(counts(other.body.result), [1, 1]);
    }
    const empty = await result(funnelOf(steps('user signed up', 'paid'), '2019-01-01', '2019-01-02'));
    assert.deepEqual(counts(empty), [0, 0]);
    assert.deepEqual(await result(funnelOf(steps('sign up'), '2019-01-01', '2019-01-02', { breakdown: '$browser' })), []);
  });

  test('scopes: insight:read, which insight:write implies', async () => {
    const funnel = funnelOf(steps('user signed up', 'paid'), '2020-01-01', '2020-01-14');
    assert.equal((await get(funnel, keys.insightRead)).status, 200);
    assert.equal((await get(funnel, keys.insightWrite)).status, 200);
    const denied = await get(funnel, keys.personRead);
    assert.equal(denied.status, 403);
    assert.deepEqual(denied.body, ERRORS.missingScope('insight:read'));
    assert.equal((await server.get(`${FUNNEL}?${actorQuery(funnel)}`, { key: null })).status, 401);
  });

  test('bad input is a 400 naming the field', async () => {
    const base = funnelOf(steps('user signed up', 'paid'), '2020-01-01', '2020-01-14');
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ events: [] }, 'events'],
      [{ events: '[{' }, 'events'],
      [{ funnel_order_type: 'random' }, 'funnel_order_type'],
      [{ funnel_viz_type: 'pie' }, 'funnel_viz_type'],
      [{ funnel_window_interval_unit: 'year' }, 'funnel_window_interval_unit'],
      [{ funnel_window_days: 0 }, 'funnel_window_days'],
      [{ funnel_window_interval: 'x' }, 'funnel_window_interval'],
      [{ funnel_window_interval: 99_999_999_999, funnel_window_interval_unit: 'month' }, 'funnel_window_interval'],
      [{ funnel_window_days: '1000000000000' }, 'funnel_window_days'],
      [{ events: Array.from({ length: 31 }, (_, order) => ({ id: `step ${order}`, order })) }, 'events'],
      [{ breakdown: { a: 1 } }, 'breakdown'],
      [{ properties: [{ key: 'id', value: 99_999, type: 'cohort' }] }, 'properties'],
      [{ breakdown_attribution_type: 'step', breakdown_attribution_value: '1.5', breakdown: '$browser' }, 'breakdown_attribution_value'],
      [{ funnel_viz_type: 'trends', interval: 'hour', date_from: 'all', date_to: undefined }, 'interval'],
      [{ date_from: 'last week' }, 'date_from'],
      [{ date_to: 'soon' }, 'date_to'],
      [{ interval: 'fortnight' }, 'interval'],
      [{ properties: '{' }, 'properties'],
      [{ exclusions: [{ id: 'x', type: 'events', funnel_from_step: 1, funnel_to_step: 1 }] }, 'exclusions'],
      [{ exclusions: [{ id: 'paid', type: 'events', funnel_from_step: 0, funnel_to_step: 1 }] }, 'exclusions'],
      [{ exclusions: '[{' }, 'exclusions'],
      [{ funnel_order_type: 'unordered', events: steps('a', 'b', 'c'), exclusions: [{ id: 'x', funnel_from_step: 0, funnel_to_step: 1 }] }, 'exclusions'],
      [{ breakdown: '$browser', breakdown_type: 'bogus' }, 'breakdown_type'],
      [{ breakdown: '$browser', breakdown_type: 'group' }, 'breakdown_group_type_index'],
      [{ breakdown: 'x', breakdown_type: 'cohort' }, 'breakdown'],
      [{ breakdown: [], breakdown_type: 'cohort', breakdowns: 'x' }, 'breakdowns'],
      [{ breakdown: '$browser', breakdown_limit: 'x' }, 'breakdown_limit'],
      [{ breakdown: '$browser', breakdown_attribution_type: 'middle' }, 'breakdown_attribution_type'],
      [{ breakdown: '$browser', breakdown_attribution_type: 'step', breakdown_attribution_value: 5 }, 'breakdown_attribution_value'],
      [{ aggregation_group_type_index: 9 }, 'aggregation_group_type_index'],
      [{ funnel_viz_type: 'time_to_convert', funnel_to_step: 0 }, 'funnel_to_step'],
      [{ funnel_viz_type: 'time_to_convert', bin_count: 'many' }, 'bin_count'],
      [{ funnel_viz_type: 'trends', funnel_from_step: 1, funnel_to_step: 1 }, 'funnel_to_step'],
      [{ funnel_viz_type: 'trends', funnel_from_step: -1 }, 'funnel_from_step'],
      [{ actions: [{ id: 999_999, type: 'actions', order: 2 }] }, 'actions'],
      [{ actions: [{ id: 'x', order: 2 }] }, 'actions'],
    ];
    for (const [params, attr] of cases) {
      const response = await get({ ...base, ...params });
      assert.equal(response.status, 400, `${JSON.stringify(params)}: ${response.text}`);
      assert.equal(response.body.type, 'validation_error');
      assert.equal(response.body.attr, attr, JSON.stringify(params));
    }
    const malformed = await server.request('POST', FUNNEL, { rawBody: '{"events":', headers: { 'content-type': 'application/json' } });
    assert.equal(malformed.status, 400);
  });

  test("project isolation: another project's actions and cohorts are 400s; its events are its own", async () => {
    const foreignAction = await server.post(`/api/projects/${secondProject.id}/actions/`, { name: 'foreign', steps: [{ event: 'user signed up' }] });
    assert.equal(foreignAction.status, 201, foreignAction.text);
    const foreignCohort = await server.post(`/api/projects/${secondProject.id}/cohorts/`, {
      name: 'foreign',
      filters: { properties: { type: 'AND', values: [{ key: 'key', value: 'value', type: 'person', operator: 'exact' }] } },
    });
    assert.equal(foreignCohort.status, 201, foreignCohort.text);
    const base = funnelOf(steps('user signed up', 'paid'), '2020-01-01', '2020-01-14');
    for (const [params, attr] of [
      [{ actions: [{ id: foreignAction.body.id, type: 'actions', order: 2 }] }, 'actions'],
      [{ exclusions: [{ id: foreignAction.body.id, type: 'actions', funnel_from_step: 0, funnel_to_step: 1 }] }, 'exclusions'],
      [{ breakdown: [foreignCohort.body.id], breakdown_type: 'cohort' }, 'breakdown'],
      [{ properties: [{ key: 'id', value: foreignCohort.body.id, type: 'cohort' }] }, 'properties'],
    ] as Array<[Record<string, unknown>, string]>) {
      const response = await get({ ...base, ...params });
      assert.equal(response.status, 400, `${JSON.stringify(params)}: ${response.text}`);
      assert.equal(response.body.attr, attr);
    }
    const theirs = await server.get(`/api/projects/${secondProject.id}/insights/funnel/?${actorQuery(base)}`);
    assert.equal(theirs.status, 200, theirs.text);
    assert.deepEqual(counts(theirs.body.result), [0, 0]);
    assert.equal((await server.get(`${FUNNEL}?${actorQuery(base)}`, { key: keys.secondOnly })).status, 403);
  });

  test('a saved insight of funnel filters computes the numbers of the endpoint', async () => {
    const filters = funnelOf(steps('sign up', 'play movie', 'buy'), '2022-01-01', '2022-01-08', { funnel_window_days: 7 });
    const created = await server.bodyOf('POST', '/api/projects/1/insights/', 201, { body: { name: 'Funnel', filters } });
    const computed = await server.bodyOf('GET', `/api/projects/1/insights/${created.id}/?refresh=true`);
    const direct = await result(filters);
    assert.deepEqual(computed.result, direct);
    assert.deepEqual(counts(computed.result), [3, 3, 2]);
  });
});
