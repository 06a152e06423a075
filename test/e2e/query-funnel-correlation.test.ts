import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { capture, type CapturedEvent } from '../support/definitions.js';
import { QUERY_TOKEN, runQuery, startQueryServer } from '../support/query-server.js';
import { ERRORS, type TallyServer } from '../support/tally.js';

/**
 * FunnelCorrelationQuery on `POST /query/`: PostHog's correlation query-runner tests
 * (posthog/hogql_queries/insights/funnels/test/test_funnel_correlation.py) restated as query
 * nodes with their odds ratios, each dataset in a month of its own; and the same questions asked
 * of `/insights/funnel/correlation/`, which must answer the same rows.
 */

function ev(event: string, distinctId: string, time: string, properties: Record<string, unknown> = {}): CapturedEvent {
  return { event, distinct_id: distinctId, timestamp: `${time}Z`, properties };
}

const SIGNUP_PAID = [
  { kind: 'EventsNode', event: 'user signed up' },
  { kind: 'EventsNode', event: 'paid' },
];

/** The funnel `user signed up` → `paid` over the first two weeks of a month of 2020. */
function funnelIn(month: string, fields: Record<string, unknown> = {}) {
  return { kind: 'FunnelsQuery', series: SIGNUP_PAID, dateRange: { date_from: `2020-${month}-01`, date_to: `2020-${month}-14` }, ...fields };
}

function correlation(funnel: Record<string, unknown>, fields: Record<string, unknown> = {}) {
  return { kind: 'FunnelCorrelationQuery', source: { kind: 'FunnelsActorsQuery', source: funnel }, funnelCorrelationType: 'events', ...fields };
}

type Row = {
  event: { event: string; properties: object; elements: unknown[] };
  success_count: number;
  failure_count: number;
  odds_ratio: number;
  correlation_type: string;
};

/** The rows without their odds ratios. */
function summary(rows: Row[]) {
  return rows.map((row) => [row.event.event, row.success_count, row.failure_count, row.correlation_type]);
}

function assertRatios(rows: Row[], expected: number[]) {
  assert.equal(rows.length, expected.length);
  for (const [index, row] of rows.entries())
    assert.ok(Math.abs(row.odds_ratio - expected[index]!) < 1e-9, `${row.event.event}: ${row.odds_ratio} ≠ ${expected[index]}`);
}

/** The legacy answer without what only it has (its persons URLs). */
function withoutPersonsUrls(result: { events: Array<Record<string, unknown>>; skewed: boolean }) {
  return { events: result.events.map(({ success_people_url: _success, failure_people_url: _failure, ...row }) => row), skewed: result.skewed };
}

describe('query API: FunnelCorrelationQuery', () => {
  let server: TallyServer;
  let keys: Record<string, string>;
  let foreign: { id: number; api_token: string };

  async function rows(query: unknown): Promise<{ events: Row[]; skewed: boolean }> {
    const response = await runQuery(server, query);
    assert.equal(response.status, 200, response.text);
    return response.body.results;
  }

  before(async () => {
    const started = await startQueryServer(['query:read', 'insight:read', 'person:read', 'query:read@1']);
    ({ server, keys, foreign } = started);
    const batch: CapturedEvent[] = [];
    // test_basic_funnel_correlation_with_events (January): an event of half the successes, and one of half the failures.
    for (let i = 0; i < 20; i += 1) {
      const id = `c1_user_${i}`;
      batch.push(ev('user signed up', id, '2020-01-02T14:00:00'));
      if (i < 10 && i % 2 === 0) batch.push(ev('positively_related', id, '2020-01-03T14:00:00'));
      if (i >= 10 && i % 2 === 0) batch.push(ev('negatively_related', id, '2020-01-03T14:00:00'));
      if (i < 10) batch.push(ev('paid', id, '2020-01-04T14:00:00'));
    }
    // test_action_events_are_excluded_from_correlations (February).
    for (let i = 0; i < 3; i += 1) {
      const id = `c2_user_${i}`;
      batch.push(ev('user signed up', id, '2020-02-02T14:00:00', { key: 'val' }), ev('user signed up', id, '2020-02-02T14:10:00'));
      if (i % 2 === 0) batch.push(ev('positively_related', id, '2020-02-03T14:00:00'));
      batch.push(ev('paid', id, '2020-02-04T14:00:00', { key: 'val' }));
    }
    batch.push(ev('user signed up', 'c2_failure', '2020-02-02T14:00:00', { key: 'val' }));
    // test_funnel_correlation_with_events_and_groups (March).
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
    // test_basic_funnel_correlation_with_properties (April) and test_funnel_correlation_with_multiple_properties (May).
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
    for (let i = 0; i < 5; i += 1) withProperties('05', `c5_user_${i}`, { $browser: 'Positive', $nice: 'very' }, true);
    for (let i = 5; i < 15; i += 1) withProperties('05', `c5_user_${i}`, { $browser: 'Positive', $nice: 'not' }, true);
    for (let i = 15; i < 20; i += 1) withProperties('05', `c5_user_${i}`, { $browser: 'Negative', $nice: 'smh' }, false);
    withProperties('05', 'c5_user_fail', { $browser: 'Positive' }, false);
    withProperties('05', 'c5_user_succ', { $browser: 'Negative' }, true);
    // test_funnel_correlation_with_event_properties (July).
    for (let i = 0; i < 20; i += 1) {
      const id = `c7_user_${i}`;
      batch.push(ev('user signed up', id, '2020-07-02T14:00:00'));
      if (i < 10 && i % 2 === 0) {
        batch.push(ev('positively_related', id, '2020-07-03T14:00:00', { signup_source: i % 4 === 0 ? 'facebook' : 'email', blah: 'value_bleh' }));
      }
      if (i >= 10 && i % 2 === 0) batch.push(ev('negatively_related', id, '2020-07-03T14:00:00', { signup_source: i % 6 === 0 ? 'shazam' : 'email' }));
      if (i < 10) batch.push(ev('paid', id, '2020-07-04T14:00:00'));
    }
    // test_correlation_with_limited_window (August): only events inside the conversion window count.
    batch.push(
      ev('user signed up', 'c8_successful', '2020-08-02T14:00:00'),
      ev('positively_related', 'c8_successful', '2020-08-02T14:02:00'),
      ev('paid', 'c8_successful', '2020-08-02T14:06:00'),
      ev('user signed up', 'c8_dropoff', '2020-08-02T14:00:00'),
      ev('NOT_negatively_related', 'c8_dropoff', '2020-08-02T14:15:00'),
    );
    await capture(server, QUERY_TOKEN, batch);
    // The foreign project: the January funnel with only successes, and an event of its own.
    await capture(server, foreign.api_token, [
      ev('user signed up', 'foreign_user', '2020-01-02T14:00:00'),
      ev('foreign_secret', 'foreign_user', '2020-01-03T14:00:00'),
      ev('paid', 'foreign_user', '2020-01-04T14:00:00'),
    ]);
  });
  after(() => server.dispose());

  test('test_basic_funnel_correlation_with_events: odds ratios of successes and failures; excluded event names', async () => {
    const result = await rows(correlation(funnelIn('01')));
    assert.equal(result.skewed, false);
    assert.deepEqual(summary(result.events), [
      ['positively_related', 5, 0, 'success'],
      ['negatively_related', 0, 5, 'failure'],
    ]);
    assertRatios(result.events, [11, 1 / 11]);
    assert.deepEqual(Object.keys(result.events[0]!).sort(), ['correlation_type', 'event', 'failure_count', 'odds_ratio', 'success_count']);
    assert.deepEqual(result.events[0]!.event, { event: 'positively_related', properties: {}, elements: [] });
    const excluded = await rows(correlation(funnelIn('01'), { funnelCorrelationExcludeEventNames: ['positively_related'] }));
    assert.deepEqual(summary(excluded.events), [['negatively_related', 0, 5, 'failure']]);
    assertRatios(excluded.events, [1 / 11]);
  });

  test("test_action_events_are_excluded_from_correlations: an action step's events are left out by name", async () => {
    const action = async (name: string) => {
      const response = await server.post('/api/projects/1/actions/', {
        name,
        steps: [{ event: name, properties: [{ key: 'key', value: ['val'], type: 'event', operator: 'exact' }] }],
      });
      assert.equal(response.status, 201, response.text);
      return response.body.id as number;
    };
    const series = [
      { kind: 'ActionsNode', id: await action('user signed up') },
      { kind: 'ActionsNode', id: await action('paid') },
    ];
    const result = await rows(correlation(funnelIn('02', { series })));
    assert.deepEqual(summary(result.events), [['positively_related', 2, 0, 'success']]);
    assertRatios(result.events, [3]);
  });

  test('test_funnel_correlation_with_events_and_groups: groups as actors, and a group property filter', async () => {
    const result = await rows(correlation(funnelIn('03', { aggregation_group_type_index: 0 })));
    assert.deepEqual(summary(result.events), [
      ['positively_related', 5, 0, 'success'],
      ['negatively_related', 1, 1, 'failure'],
    ]);
    assertRatios(result.events, [12 / 7, 1 / 11]);
    const finance = await rows(
      correlation(funnelIn('03', { aggregation_group_type_index: 0, properties: [{ key: 'industry', value: 'finance', type: 'group', group_type_index: 0 }] })),
    );
    assert.deepEqual(summary(finance.events), [['negatively_related', 1, 1, 'failure']]);
    assertRatios(finance.events, [1]);
  });

  test('test_basic_funnel_correlation_with_properties, and several properties with $all', async () => {
    const result = await rows(correlation(funnelIn('04'), { funnelCorrelationType: 'properties', funnelCorrelationNames: ['$browser'] }));
    assert.deepEqual(summary(result.events), [
      ['$browser::Positive', 10, 1, 'success'],
      ['$browser::Negative', 1, 10, 'failure'],
    ]);
    assertRatios(result.events, [121 / 4, 4 / 121]);
    const all = await rows(
      correlation(funnelIn('05'), {
        funnelCorrelationType: 'properties',
        funnelCorrelationNames: ['$all'],
        funnelCorrelationExcludeNames: ['$creator_event_uuid'],
      }),
    );
    assert.deepEqual(summary(all.events), [
      ['$browser::Positive', 15, 1, 'success'],
      ['$nice::not', 10, 0, 'success'],
      ['$nice::very', 5, 0, 'success'],
      ['$nice::smh', 0, 5, 'failure'],
      ['$browser::Negative', 1, 5, 'failure'],
    ]);
  });

  test('test_funnel_correlation_with_event_properties: rows of two actors or fewer are left out', async () => {
    const result = await rows(
      correlation(funnelIn('07'), {
        funnelCorrelationType: 'event_with_properties',
        funnelCorrelationEventNames: ['positively_related', 'negatively_related'],
        // The events carry the sender's $ip and $lib too: properties left out here.
        funnelCorrelationEventExcludePropertyNames: ['$ip', '$lib'],
      }),
    );
    assert.deepEqual(summary(result.events), [
      ['positively_related::blah::value_bleh', 5, 0, 'success'],
      ['positively_related::signup_source::facebook', 3, 0, 'success'],
      ['negatively_related::signup_source::email', 0, 3, 'failure'],
    ]);
    assertRatios(result.events, [11, 5.5, 2 / 11]);
  });

  test('test_correlation_with_limited_window; one-sided totals are skewed with no rows', async () => {
    const windowed = await rows(correlation(funnelIn('08', { funnelsFilter: { funnelWindowInterval: 10, funnelWindowIntervalUnit: 'minute' } })));
    assert.deepEqual(summary(windowed.events), [['positively_related', 1, 0, 'success']]);
    assertRatios(windowed.events, [4]);
    assert.deepEqual(await rows(correlation(funnelIn('01', { dateRange: { date_from: '2019-01-01', date_to: '2019-01-02' } }))), { events: [], skewed: true });
  });

  test("EQUIVALENCE: the same questions give /insights/funnel/correlation/'s rows", async () => {
    const legacyFunnel = (month: string, extra: Record<string, unknown> = {}) => ({
      insight: 'FUNNELS',
      events: [
        { id: 'user signed up', order: 0 },
        { id: 'paid', order: 1 },
      ],
      date_from: `2020-${month}-01`,
      date_to: `2020-${month}-14`,
      ...extra,
    });
    const questions: Array<[Record<string, unknown>, Record<string, unknown>]> = [
      [correlation(funnelIn('01')), legacyFunnel('01')],
      [
        correlation(funnelIn('01'), { funnelCorrelationExcludeEventNames: ['negatively_related'] }),
        legacyFunnel('01', { funnel_correlation_exclude_event_names: ['negatively_related'] }),
      ],
      [correlation(funnelIn('03', { aggregation_group_type_index: 0 })), legacyFunnel('03', { aggregation_group_type_index: 0 })],
      [
        correlation(funnelIn('04', { properties: [{ key: '$browser', value: 'Negative', operator: 'is_not', type: 'person' }] }), {
          funnelCorrelationType: 'properties',
          funnelCorrelationNames: ['$browser'],
        }),
        legacyFunnel('04', {
          properties: [{ key: '$browser', value: 'Negative', operator: 'is_not', type: 'person' }],
          funnel_correlation_type: 'properties',
          funnel_correlation_names: ['$browser'],
        }),
      ],
      [
        correlation(funnelIn('05'), {
          funnelCorrelationType: 'properties',
          funnelCorrelationNames: ['$browser', '$nice'],
          funnelCorrelationExcludeNames: ['$browser'],
        }),
        legacyFunnel('05', {
          funnel_correlation_type: 'properties',
          funnel_correlation_names: ['$browser', '$nice'],
          funnel_correlation_exclude_names: ['$browser'],
        }),
      ],
      [
        correlation(funnelIn('07'), {
          funnelCorrelationType: 'event_with_properties',
          funnelCorrelationEventNames: ['positively_related', 'negatively_related'],
          funnelCorrelationEventExcludePropertyNames: ['$ip', '$lib', 'blah'],
        }),
        legacyFunnel('07', {
          funnel_correlation_type: 'event_with_properties',
          funnel_correlation_event_names: ['positively_related', 'negatively_related'],
          funnel_correlation_event_exclude_property_names: ['$ip', '$lib', 'blah'],
        }),
      ],
      [
        correlation(funnelIn('08', { funnelsFilter: { funnelWindowInterval: 10, funnelWindowIntervalUnit: 'minute', funnelOrderType: 'unordered' } })),
        legacyFunnel('08', { funnel_window_interval: 10, funnel_window_interval_unit: 'minute', funnel_order_type: 'unordered' }),
      ],
    ];
    for (const [query, legacy] of questions) {
      const viaQuery = await rows(query);
      const viaLegacy = await server.bodyOf('POST', '/api/projects/1/insights/funnel/correlation/', 200, { body: legacy });
      assert.deepEqual(viaQuery, withoutPersonsUrls(viaLegacy.result), JSON.stringify(query));
      assert.ok(viaQuery.events.length > 0, JSON.stringify(query));
    }
  });

  test('the envelope: columns, types, hasMore, limit, offset; /query/FunnelCorrelationQuery/; trailing slash and /api/environments/', async () => {
    const query = correlation(funnelIn('01'));
    const response = await runQuery(server, query);
    assert.deepEqual(Object.keys(response.body).sort(), [
      'cache_key',
      'columns',
      'hasMore',
      'is_cached',
      'last_refresh',
      'limit',
      'modifiers',
      'next_allowed_client_refresh',
      'offset',
      'results',
      'timezone',
      'timings',
      'types',
    ]);
    assert.deepEqual(response.body.columns, ['name', 'success_count', 'failure_count']);
    assert.deepEqual(response.body.types, [
      ['name', 'String'],
      ['success_count', 'UInt64'],
      ['failure_count', 'UInt64'],
    ]);
    assert.deepEqual([response.body.hasMore, response.body.limit, response.body.offset], [false, null, null]);
    for (const path of ['/api/projects/1/query', '/api/environments/1/query/', '/api/environments/1/query', '/api/projects/1/query/FunnelCorrelationQuery/']) {
      const other = await server.post(path, { query });
      assert.equal(other.status, 200, `${path}: ${other.text}`);
      assert.deepEqual(other.body.results, response.body.results, path);
    }
  });

  test('scopes: query:read or insight:read; person:read alone is a 403', async () => {
    const query = correlation(funnelIn('01'));
    for (const scope of ['query:read', 'insight:read']) {
      const allowed = await runQuery(server, query, { key: keys[scope] });
      assert.equal(allowed.status, 200, scope);
      assert.equal(allowed.body.results.events.length, 2);
    }
    const denied = await runQuery(server, query, { key: keys['person:read'] });
    assert.deepEqual([denied.status, denied.body], [403, ERRORS.missingScope('query:read')]);
  });

  test('bad input: 400 naming the dotted path from the body root', async () => {
    const base = correlation(funnelIn('01'));
    const cases: Array<[unknown, string]> = [
      [{ ...base, funnelCorrelationType: undefined }, 'query.funnelCorrelationType'],
      [{ ...base, funnelCorrelationType: 'vibes' }, 'query.funnelCorrelationType'],
      [{ ...base, funnelCorrelationType: 'properties' }, 'query.funnelCorrelationNames'],
      [{ ...base, funnelCorrelationType: 'event_with_properties' }, 'query.funnelCorrelationEventNames'],
      [{ ...base, funnelCorrelationExcludeEventNames: 'paid' }, 'query.funnelCorrelationExcludeEventNames'],
      [{ ...base, source: funnelIn('01') }, 'query.source.kind'],
      [{ ...base, source: { kind: 'FunnelsActorsQuery', source: funnelIn('01'), funnelStepBreakdown: 'Chrome' } }, 'query.source.funnelStepBreakdown'],
      [{ ...base, source: { kind: 'FunnelsActorsQuery' } }, 'query.source.source'],
      [correlation(funnelIn('01', { series: SIGNUP_PAID.slice(0, 1) })), 'query.source.source.series'],
      [correlation(funnelIn('01', { dateRange: { date_from: 'yesterday-ish' } })), 'query.source.source.dateRange.date_from'],
      [correlation(funnelIn('01', { funnelsFilter: { funnelWindowIntervalUnit: 'decade' } })), 'query.source.source.funnelsFilter.funnelWindowIntervalUnit'],
      [correlation(funnelIn('01', { series: [SIGNUP_PAID[0], { kind: 'ActionsNode', id: 424_242 }] })), 'query.source.source.series'],
      [{ kind: 'InsightVizNode', source: base }, 'query.source.kind'],
    ];
    for (const [query, attr] of cases) {
      const response = await runQuery(server, query);
      assert.equal(response.status, 400, `${JSON.stringify(query)}: ${response.text}`);
      assert.equal(response.body.type, 'validation_error');
      assert.equal(response.body.attr, attr, JSON.stringify(query));
    }
  });

  test("project isolation: another project's rows are its own; its actions are 400s; a key of one project is refused elsewhere", async () => {
    // Project 1's January has failures; the foreign project's only a success: no rows there.
    assert.deepEqual(await rows(correlation(funnelIn('01'))).then((result) => result.events.map((row) => row.event.event)), [
      'positively_related',
      'negatively_related',
    ]);
    const theirs = await runQuery(server, correlation(funnelIn('01')), { project: foreign.id });
    assert.equal(theirs.status, 200, theirs.text);
    assert.deepEqual(theirs.body.results, { events: [], skewed: true });
    const foreignAction = await server.post(`/api/projects/${foreign.id}/actions/`, { name: 'foreign', steps: [{ event: 'paid' }] });
    assert.equal(foreignAction.status, 201, foreignAction.text);
    const refused = await runQuery(server, correlation(funnelIn('01', { series: [SIGNUP_PAID[0], { kind: 'ActionsNode', id: foreignAction.body.id }] })));
    assert.equal(refused.status, 400, refused.text);
    assert.equal(refused.body.attr, 'query.source.source.series');
    const scoped = await runQuery(server, correlation(funnelIn('01')), { project: foreign.id, key: keys['query:read@1'] });
    assert.equal(scoped.status, 403);
  });
});
