import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { actorQuery, peopleIds } from '../support/actors.js';
import { sendBatch } from '../support/capture.js';
import { ERRORS, TallyServer, tempDataDir } from '../support/tally.js';

/**
 * `GET|POST /insights/funnel/correlation/`: PostHog's legacy correlation tests
 * (ee/clickhouse/queries/funnels/test/test_funnel_correlation.py) restated with their odds
 * ratios as C1–C7, each dataset in a month of its own, captured through /batch. Every row's
 * success and failure persons URLs are followed: they list exactly the row's counts.
 */

const CORRELATION = '/api/projects/1/insights/funnel/correlation/';

function ev(event: string, distinctId: string, time: string, properties: Record<string, unknown> = {}) {
  return { event, distinct_id: distinctId, timestamp: `${time}Z`, properties };
}

const SIGNUP_PAID = [
  { id: 'user signed up', type: 'events', order: 0 },
  { id: 'paid', type: 'events', order: 1 },
];

/** The funnel `user signed up` → `paid` over the first two weeks of a month of 2020. */
function funnelIn(month: string, extra: Record<string, unknown> = {}) {
  return { insight: 'FUNNELS', events: SIGNUP_PAID, date_from: `2020-${month}-01`, date_to: `2020-${month}-14`, ...extra };
}

type Row = {
  event: { event: string; properties: object; elements: unknown[] };
  success_count: number;
  failure_count: number;
  odds_ratio: number;
  correlation_type: string;
  success_people_url: string;
  failure_people_url: string;
};

describe('insights: funnel correlation', () => {
  let server: TallyServer;
  let keys: Record<string, string>;

  const get = (params: Record<string, unknown>, key?: string) => server.get(`${CORRELATION}?${actorQuery(params)}`, { key });

  async function correlation(params: Record<string, unknown>): Promise<{ events: Row[]; skewed: boolean }> {
    const response = await get(params);
    assert.equal(response.status, 200, response.text);
    return response.body.result;
  }

  /** The rows without their odds ratios and URLs, and the ratios apart. */
  function summary(rows: Row[]) {
    return rows.map((row) => [row.event.event, row.success_count, row.failure_count, row.correlation_type]);
  }

  function assertRatios(rows: Row[], expected: number[]) {
    assert.equal(rows.length, expected.length);
    for (const [index, row] of rows.entries())
      assert.ok(Math.abs(row.odds_ratio - expected[index]!) < 1e-9, `${row.event.event}: ${row.odds_ratio} ≠ ${expected[index]}`);
  }

  /** Every row's success persons are its success count, its failure persons its failure count. */
  async function assertRowActors(rows: Row[]) {
    for (const row of rows) {
      for (const [url, count] of [
        [row.success_people_url, row.success_count],
        [row.failure_people_url, row.failure_count],
      ] as Array<[string, number]>) {
        const response = await server.get(url);
        assert.equal(response.status, 200, `${url}: ${response.text}`);
        assert.equal(peopleIds(response).length, count, `${row.event.event}: ${url}`);
      }
    }
  }

  before(async () => {
    const projectToken = `phc_${randomBytes(16).toString('hex')}`;
    const personalApiKey = `phx_${randomBytes(20).toString('hex')}`;
    server = new TallyServer(tempDataDir('correlation-test-'), { TALLY_PROJECT_TOKEN: projectToken, TALLY_PERSONAL_API_KEY: personalApiKey });
    keys = { insightRead: server.createKey('insight:read'), personRead: server.createKey('person:read') };
    await server.start();
    server.projectToken = projectToken;
    server.personalApiKey = personalApiKey;

    const batch: Array<ReturnType<typeof ev>> = [];
    // C1 (January): an event of half the successes, and one of half the failures.
    for (let i = 0; i < 20; i += 1) {
      const id = `c1_user_${i}`;
      batch.push(ev('user signed up', id, '2020-01-02T14:00:00'));
      if (i < 10 && i % 2 === 0) batch.push(ev('positively_related', id, '2020-01-03T14:00:00'));
      if (i >= 10 && i % 2 === 0) batch.push(ev('negatively_related', id, '2020-01-03T14:00:00'));
      if (i < 10) batch.push(ev('paid', id, '2020-01-04T14:00:00'));
    }
    // C2 (February): action steps; the events of their names are left out, matching or not.
    for (let i = 0; i < 3; i += 1) {
      const id = `c2_user_${i}`;
      batch.push(ev('user signed up', id, '2020-02-02T14:00:00', { key: 'val' }), ev('user signed up', id, '2020-02-02T14:10:00'));
      if (i % 2 === 0) batch.push(ev('positively_related', id, '2020-02-03T14:00:00'));
      batch.push(ev('paid', id, '2020-02-04T14:00:00', { key: 'val' }));
    }
    batch.push(ev('user signed up', 'c2_failure', '2020-02-02T14:00:00', { key: 'val' }));
    // C3 (March): groups as actors.
    const group = (key: string) => ({ $groups: { organization: key } });
    batch.push(
      ev('$groupidentify', 'c3_admin', '2020-03-01T00:00:00', { $group_type: 'organization', $group_key: 'org:5', $group_set: { industry: 'finance' } }),
      ev('$groupidentify', 'c3_admin', '2020-03-01T00:00:00', { $group_type: 'organization', $group_key: 'org:7', $group_set: { industry: 'finance' } }),
    );
    for (let i = 10; i < 20; i += 1) {
      const id = `c3_user_${i}`;
      batch.push(ev('user signed up', id, '2020-03-02T14:00:00', group(`org:${i}`)));
      if (i % 2 === 0) {
        batch.push(ev('positively_related', id, '2020-03-03T14:00:00', group(`org:${i}`)));
        // Without a group: not an event of any actor.
        batch.push(ev('positively_related_without_group', id, '2020-03-03T14:00:00'));
      }
      batch.push(ev('paid', id, '2020-03-04T14:00:00', group(`org:${i}`)));
    }
    batch.push(
      ev('user signed up', 'c3_user_fail', '2020-03-02T14:00:00', group('org:5')),
      ev('negatively_related', 'c3_user_19', '2020-03-03T14:00:00', group('org:5')),
      ev('user signed up', 'c3_user_succ', '2020-03-02T14:00:00', group('org:7')),
      ev('negatively_related', 'c3_user_19', '2020-03-03T14:00:00', group('org:7')),
      ev('paid', 'c3_user_succ', '2020-03-04T14:00:00', group('org:7')),
    );
    // C4 (April): one person property.
    const withProperties = (month: string, id: string, properties: Record<string, unknown>, converts: boolean) => {
      batch.push(ev('user signed up', id, `2020-${month}-02T14:00:00`, { $set: properties }));
      if (converts) batch.push(ev('paid', id, `2020-${month}-04T14:00:00`));
    };
    for (let i = 0; i < 10; i += 1) withProperties('04', `c4_user_${i}`, { $browser: 'Positive' }, true);
    for (let i = 10; i < 20; i += 1) {
      withProperties('04', `c4_user_${i}`, { $browser: 'Negative' }, false);
      if (i % 2 === 0) batch.push(ev('negatively_related', `c4_user_${i}`, '2020-04-03T14:00:00'));
    }
    withProperties('04', 'c4_user_fail', { $browser: 'Positive' }, false);
    withProperties('04', 'c4_user_succ', { $browser: 'Negative' }, true);
    // C5 (May): two person properties, one of them missing for some persons.
    for (let i = 0; i < 5; i += 1) withProperties('05', `c5_user_${i}`, { $browser: 'Positive', $nice: 'very' }, true);
    for (let i = 5; i < 15; i += 1) withProperties('05', `c5_user_${i}`, { $browser: 'Positive', $nice: 'not' }, true);
    for (let i = 15; i < 20; i += 1) withProperties('05', `c5_user_${i}`, { $browser: 'Negative', $nice: 'smh' }, false);
    withProperties('05', 'c5_user_fail', { $browser: 'Positive' }, false);
    withProperties('05', 'c5_user_succ', { $browser: 'Negative' }, true);
    // C6 (June): events done by no failure, and by no success.
    for (let i = 0; i < 4; i += 1) {
      const id = `c6_user_${i}`;
      batch.push(ev('user signed up', id, '2020-06-02T14:00:00'));
      if (i < 2) batch.push(ev('positive', id, '2020-06-03T14:00:00'), ev('paid', id, '2020-06-04T14:00:00'));
      if (i === 2) batch.push(ev('negatively_related', id, '2020-06-03T14:00:00'));
    }
    // C7 (July): properties of the correlated events.
    for (let i = 0; i < 20; i += 1) {
      const id = `c7_user_${i}`;
      batch.push(ev('user signed up', id, '2020-07-02T14:00:00'));
      if (i < 10 && i % 2 === 0) {
        batch.push(ev('positively_related', id, '2020-07-03T14:00:00', { signup_source: i % 4 === 0 ? 'facebook' : 'email', blah: 'value_bleh' }));
      }
      if (i >= 10 && i % 2 === 0) batch.push(ev('negatively_related', id, '2020-07-03T14:00:00', { signup_source: i % 6 === 0 ? 'shazam' : 'email' }));
      if (i < 10) batch.push(ev('paid', id, '2020-07-04T14:00:00'));
    }
    // C8 (August): only events inside the conversion window count.
    batch.push(
      ev('user signed up', 'c8_successful', '2020-08-02T14:00:00'),
      ev('positively_related', 'c8_successful', '2020-08-02T14:02:00'),
      ev('paid', 'c8_successful', '2020-08-02T14:06:00'),
      ev('user signed up', 'c8_dropoff', '2020-08-02T14:00:00'),
      ev('NOT_negatively_related', 'c8_dropoff', '2020-08-02T14:15:00'),
    );
    await sendBatch(server, batch);
  });
  after(() => server.dispose());

  test('C1: events of successes and of failures, with their odds ratios; excluded names leave the results only', async () => {
    const result = await correlation(funnelIn('01', { funnel_correlation_type: 'events' }));
    assert.equal(result.skewed, false);
    assert.deepEqual(summary(result.events), [
      ['positively_related', 5, 0, 'success'],
      ['negatively_related', 0, 5, 'failure'],
    ]);
    assertRatios(result.events, [11, 1 / 11]);
    assert.deepEqual(result.events[0]!.event, { event: 'positively_related', properties: {}, elements: [] });
    await assertRowActors(result.events);
    const excluded = await correlation(funnelIn('01', { funnel_correlation_exclude_event_names: ['positively_related'] }));
    assert.deepEqual(summary(excluded.events), [['negatively_related', 0, 5, 'failure']]);
    assertRatios(excluded.events, [1 / 11]);
    // The persons of an excluded event are still found.
    const positive = await server.get(result.events[0]!.success_people_url);
    assert.equal(peopleIds(positive).length, 5);
  });

  test('C2: the events of action steps are left out by name, even those that do not match the action', async () => {
    const action = async (name: string) => {
      const response = await server.post('/api/projects/1/actions/', {
        name,
        steps: [{ event: name, properties: [{ key: 'key', value: ['val'], type: 'event', operator: 'exact' }] }],
      });
      assert.equal(response.status, 201, response.text);
      return response.body.id as number;
    };
    const signup = await action('user signed up');
    const paid = await action('paid');
    const result = await correlation({
      insight: 'FUNNELS',
      events: [],
      actions: [
        { id: signup, order: 0 },
        { id: paid, order: 1 },
      ],
      date_from: '2020-02-01',
      date_to: '2020-02-14',
    });
    assert.deepEqual(summary(result.events), [['positively_related', 2, 0, 'success']]);
    assertRatios(result.events, [3]);
    await assertRowActors(result.events);
  });

  test('C3: groups as actors, and a group property filter', async () => {
    const result = await correlation(funnelIn('03', { aggregation_group_type_index: 0 }));
    assert.deepEqual(summary(result.events), [
      ['positively_related', 5, 0, 'success'],
      ['negatively_related', 1, 1, 'failure'],
    ]);
    assertRatios(result.events, [12 / 7, 1 / 11]);
    const finance = await correlation(
      funnelIn('03', { aggregation_group_type_index: 0, properties: [{ key: 'industry', value: 'finance', type: 'group', group_type_index: 0 }] }),
    );
    assert.deepEqual(summary(finance.events), [['negatively_related', 1, 1, 'failure']]);
    assertRatios(finance.events, [1]);
    // Group actors are not persons: their lists are refused rather than answered with persons.
    const groups = await server.get(result.events[0]!.success_people_url);
    assert.equal(groups.status, 400);
    assert.equal(groups.body.attr, 'aggregation_group_type_index');
  });

  test('C4: a person property', async () => {
    const result = await correlation(funnelIn('04', { funnel_correlation_type: 'properties', funnel_correlation_names: ['$browser'] }));
    assert.deepEqual(summary(result.events), [
      ['$browser::Positive', 10, 1, 'success'],
      ['$browser::Negative', 1, 10, 'failure'],
    ]);
    assertRatios(result.events, [121 / 4, 4 / 121]);
    await assertRowActors(result.events);
    const url = new URL(result.events[0]!.success_people_url, server.url);
    assert.equal(url.pathname, '/api/projects/1/persons/funnel/correlation/');
    assert.deepEqual(JSON.parse(url.searchParams.get('funnel_correlation_property_values')!), [
      { key: '$browser', value: 'Positive', type: 'person', operator: 'exact' },
    ]);
    assert.equal(url.searchParams.get('funnel_correlation_person_converted'), 'true');
  });

  test('C5: several properties, $all, and excluded property names', async () => {
    const expected = [
      ['$browser::Positive', 15, 1, 'success'],
      ['$nice::not', 10, 0, 'success'],
      ['$nice::very', 5, 0, 'success'],
      ['$nice::smh', 0, 5, 'failure'],
      ['$browser::Negative', 1, 5, 'failure'],
      ['$nice::', 1, 1, 'failure'],
    ];
    const ratios = [
      (16 / 2) * ((7 - 1) / (17 - 15)),
      (11 / 1) * ((7 - 0) / (17 - 10)),
      (6 / 1) * ((7 - 0) / (17 - 5)),
      (1 / 6) * ((7 - 5) / (17 - 0)),
      (2 / 6) * ((7 - 5) / (17 - 1)),
      (2 / 2) * ((7 - 1) / (17 - 1)),
    ];
    const named = await correlation(funnelIn('05', { funnel_correlation_type: 'properties', funnel_correlation_names: ['$browser', '$nice'] }));
    assert.deepEqual(summary(named.events), expected);
    assertRatios(named.events, ratios);
    await assertRowActors(named.events);
    // $all reads the properties persons have: nobody has an empty $nice. Capture gives every
    // person the uuid of the event that made it, one value per person: left out here.
    const all = await correlation(
      funnelIn('05', { funnel_correlation_type: 'properties', funnel_correlation_names: ['$all'], funnel_correlation_exclude_names: ['$creator_event_uuid'] }),
    );
    assert.deepEqual(summary(all.events), expected.slice(0, -1));
    assertRatios(all.events, ratios.slice(0, -1));
    const withoutBrowser = await correlation(
      funnelIn('05', {
        funnel_correlation_type: 'properties',
        funnel_correlation_names: ['$all'],
        funnel_correlation_exclude_names: ['$browser', '$creator_event_uuid'],
      }),
    );
    assert.deepEqual(summary(withoutBrowser.events), expected.slice(1, 4));
  });

  test('C6: no division by zero; one-sided totals are skewed with no rows', async () => {
    const result = await correlation(funnelIn('06'));
    assert.equal(result.skewed, false);
    assert.deepEqual(summary(result.events), [
      ['positive', 2, 0, 'success'],
      ['negatively_related', 0, 1, 'failure'],
    ]);
    assertRatios(result.events, [9, 1 / 3]);
    await assertRowActors(result.events);
    const everyoneConverts = await correlation(funnelIn('06', { events: [SIGNUP_PAID[0]] }));
    assert.deepEqual(everyoneConverts, { events: [], skewed: true });
    const nobody = await correlation(funnelIn('06', { date_from: '2019-01-01', date_to: '2019-01-02' }));
    assert.deepEqual(nobody, { events: [], skewed: true });
  });

  test('C7: properties of the listed events; rows of two persons or fewer are left out', async () => {
    const eventsWithProperties = {
      funnel_correlation_type: 'event_with_properties',
      funnel_correlation_event_names: ['positively_related', 'negatively_related'],
    };
    // Capture adds the sender's $ip to every event: a property the correlation leaves out here.
    const result = await correlation(funnelIn('07', { ...eventsWithProperties, funnel_correlation_event_exclude_property_names: ['$ip'] }));
    assert.deepEqual(summary(result.events), [
      ['positively_related::blah::value_bleh', 5, 0, 'success'],
      ['positively_related::signup_source::facebook', 3, 0, 'success'],
      ['negatively_related::signup_source::email', 0, 3, 'failure'],
    ]);
    assertRatios(result.events, [11, 5.5, 2 / 11]);
    await assertRowActors(result.events);
    const excluded = await correlation(funnelIn('07', { ...eventsWithProperties, funnel_correlation_event_exclude_property_names: ['blah', '$ip'] }));
    assert.deepEqual(
      summary(excluded.events).map((row) => row[0]),
      ['positively_related::signup_source::facebook', 'negatively_related::signup_source::email'],
    );
  });

  test('C8: only events between entering and converting, or inside the window, count', async () => {
    const result = await correlation(funnelIn('08', { funnel_window_interval: '10', funnel_window_interval_unit: 'minute' }));
    assert.deepEqual(summary(result.events), [['positively_related', 1, 0, 'success']]);
    assertRatios(result.events, [4]);
    await assertRowActors(result.events);
  });

  test('the envelope; POST bodies; trailing slash and /api/environments/', async () => {
    const params = funnelIn('01');
    const response = await get(params);
    assert.deepEqual(Object.keys(response.body).sort(), ['is_cached', 'last_refresh', 'result', 'timezone']);
    assert.equal(response.body.timezone, 'UTC');
    const posted = await server.post(CORRELATION, params);
    assert.equal(posted.status, 200, posted.text);
    assert.deepEqual(summary(posted.body.result.events), summary(response.body.result.events));
    for (const path of ['/api/projects/1/insights/funnel/correlation', '/api/environments/1/insights/funnel/correlation/']) {
      const other = await server.get(`${path}?${actorQuery(params)}`);
      assert.equal(other.status, 200, path);
      assert.equal(other.body.result.events.length, 2);
    }
  });

  test('scopes and bad input', async () => {
    const params = funnelIn('01');
    assert.equal((await get(params, keys.insightRead)).status, 200);
    assert.deepEqual((await get(params, keys.personRead)).body, ERRORS.missingScope('insight:read'));
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ funnel_correlation_type: 'vibes' }, 'funnel_correlation_type'],
      [{ funnel_correlation_type: 'properties' }, 'funnel_correlation_names'],
      [{ funnel_correlation_type: 'event_with_properties' }, 'funnel_correlation_event_names'],
      [{ funnel_correlation_names: { a: 1 }, funnel_correlation_type: 'properties' }, 'funnel_correlation_names'],
      [{ events: [] }, 'events'],
      [{ date_from: 'yesterday-ish' }, 'date_from'],
      [{ funnel_window_interval_unit: 'decade' }, 'funnel_window_interval_unit'],
      [{ actions: [{ id: 424242, order: 3 }] }, 'actions'],
    ];
    for (const [extra, attr] of cases) {
      const response = await get({ ...params, ...extra });
      assert.equal(response.status, 400, `${JSON.stringify(extra)}: ${response.text}`);
      assert.equal(response.body.attr, attr, JSON.stringify(extra));
    }
  });
});
