import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { actorQuery } from '../support/actors.js';
import { capture, type CapturedEvent } from '../support/definitions.js';
import { QUERY_TOKEN, runQuery, startQueryServer } from '../support/query-server.js';
import type { TallyServer } from '../support/tally.js';

/**
 * ActorsQuery on `POST /query/` (project 1, UTC). Each source's actors are compared with the
 * legacy `/persons/<kind>/` endpoint's persons for the same question, and counted against the
 * insight's number for that data point.
 *
 *   Trends, `watched`, January 2020:  t1 01-01 ×3 (Firefox) + 01-02; t2 01-01 (Chrome) + 01-03;
 *                                      t3 01-01 ×2 (Safari); t4 01-02. Stickiness over 01-01…01-07:
 *                                      t1 2 days, t2 2 days, t3 1 day, t4 1 day.
 *   Lifecycle, `play`, February 2020: l1 02-01, 02-02, 02-04; l2 signs up 02-01, plays 02-02; l3 02-03.
 *   Retention, `visit`, March 2020:   r1 03-01, 03-02, 03-04; r2 03-01, 03-03; r3 03-02.
 *   Paths, `$pageview`, April 2020:   p1 /a → /b → /c; p2 /a → /b; p3 /a → /c.
 *   Funnel sign up → view → pay, May 2021: f1 all three; f2 sign up, view; f3 sign up.
 *
 * A person is created by its first event, so persons listed newest first follow those times.
 */

function ev(event: string, distinctId: string, timestamp: string, properties: Record<string, unknown> = {}): CapturedEvent {
  return { event, distinct_id: distinctId, timestamp: `${timestamp}Z`, properties };
}

const WATCHED = [{ kind: 'EventsNode', event: 'watched' }];
const JANUARY = { date_from: '2020-01-01', date_to: '2020-01-07' };
const trends = (fields: Record<string, unknown> = {}) => ({ kind: 'TrendsQuery', series: WATCHED, dateRange: JANUARY, ...fields });
const FUNNEL = {
  kind: 'FunnelsQuery',
  series: ['sign up', 'view', 'pay'].map((event) => ({ kind: 'EventsNode', event })),
  dateRange: { date_from: '2021-05-01', date_to: '2021-05-31' },
};
const FUNNEL_LEGACY = {
  events: [
    { id: 'sign up', type: 'events', order: 0 },
    { id: 'view', type: 'events', order: 1 },
    { id: 'pay', type: 'events', order: 2 },
  ],
  date_from: '2021-05-01',
  date_to: '2021-05-31',
};
const LIFECYCLE = { kind: 'LifecycleQuery', series: [{ kind: 'EventsNode', event: 'play' }], dateRange: { date_from: '2020-02-01', date_to: '2020-02-04' } };
const STICKINESS = { kind: 'StickinessQuery', series: WATCHED, dateRange: JANUARY };
const RETENTION = {
  kind: 'RetentionQuery',
  retentionFilter: { targetEntity: { id: 'visit', type: 'events' }, returningEntity: { id: 'visit', type: 'events' }, period: 'Day', totalIntervals: 4 },
  dateRange: { date_to: '2020-03-04' },
};
const paths = (keys: Record<string, string>) => ({
  kind: 'PathsQuery',
  pathsFilter: { includeEventTypes: ['$pageview'], ...keys },
  dateRange: { date_from: '2020-04-01', date_to: '2020-04-02' },
});

type Person = Record<string, any>;

describe('query API: ActorsQuery', () => {
  let server: TallyServer;
  let keys: Record<string, string>;
  let foreign: { id: number; api_token: string };

  async function answer(query: unknown, key?: string): Promise<any> {
    const response = await runQuery(server, query, key ? { key } : {});
    assert.equal(response.status, 200, response.text);
    return response.body;
  }

  /** The `person` column of an ActorsQuery of `source` with the default columns. */
  async function persons(source: unknown, fields: Record<string, unknown> = {}): Promise<Person[]> {
    const body = await answer({ kind: 'ActorsQuery', source, ...fields });
    assert.deepEqual(body.columns.slice(0, 3), ['person', 'id', 'person.$delete']);
    for (const row of body.results) {
      assert.equal(row[1], row[0].uuid);
      assert.equal(row[2], 1);
    }
    return body.results.map((row: unknown[]) => row[0]);
  }

  /** The persons of a legacy actors endpoint, without what only the legacy answer has. */
  async function legacy(path: string): Promise<Person[]> {
    const response = await server.get(path.startsWith('/') ? path : `/${path}`);
    assert.equal(response.status, 200, response.text);
    const people: Person[] = response.body.results?.[0]?.people ?? response.body.result.map((row: { person: Person }) => row.person);
    return people.map(({ value_at_data_point: _value, ...person }) => person);
  }

  const firstIds = (list: Person[]) => list.map((person) => person.distinct_ids[0]);

  async function refused(query: unknown, attr: string, detail?: string): Promise<void> {
    const response = await runQuery(server, query);
    assert.equal(response.status, 400, `${attr}: ${response.text}`);
    assert.equal(response.body.type, 'validation_error');
    assert.equal(response.body.attr, attr, response.text);
    if (detail !== undefined) assert.equal(response.body.detail, detail);
  }

  before(async () => {
    ({ server, keys, foreign } = await startQueryServer(['query:read', 'insight:read', 'person:read']));
    await capture(server, QUERY_TOKEN, [
      ev('watched', 't1', '2020-01-01T08:00:00', { $browser: 'Firefox', $set: { email: 'ada@example.com', name: 'Ada' } }),
      ev('watched', 't1', '2020-01-01T08:10:00', { $browser: 'Firefox' }),
      ev('watched', 't1', '2020-01-01T08:20:00', { $browser: 'Firefox' }),
      ev('watched', 't1', '2020-01-02T08:00:00', { $browser: 'Firefox' }),
      ev('watched', 't2', '2020-01-01T09:00:00', { $browser: 'Chrome', $set: { email: 'bob@example.com' } }),
      ev('watched', 't2', '2020-01-03T09:00:00', { $browser: 'Chrome' }),
      ev('watched', 't3', '2020-01-01T10:00:00', { $browser: 'Safari' }),
      ev('watched', 't3', '2020-01-01T10:30:00', { $browser: 'Safari' }),
      ev('watched', 't4', '2020-01-02T11:00:00', { $browser: 'Safari' }),
      // t3 gains a second distinct id that never watched: event_distinct_ids leave it out.
      ev('$identify', 't3', '2020-06-01T10:00:00', { $anon_distinct_id: 't3-phone' }),
      ev('play', 'l1', '2020-02-01T10:00:00'),
      ev('signup', 'l2', '2020-02-01T11:00:00'),
      ev('play', 'l1', '2020-02-02T10:00:00'),
      ev('play', 'l2', '2020-02-02T11:00:00'),
      ev('play', 'l3', '2020-02-03T10:00:00'),
      ev('play', 'l1', '2020-02-04T10:00:00'),
      ev('visit', 'r1', '2020-03-01T10:00:00'),
      ev('visit', 'r2', '2020-03-01T11:00:00'),
      ev('visit', 'r1', '2020-03-02T10:00:00'),
      ev('visit', 'r3', '2020-03-02T12:00:00'),
      ev('visit', 'r2', '2020-03-03T11:00:00'),
      ev('visit', 'r1', '2020-03-04T10:00:00'),
      ev('$pageview', 'p1', '2020-04-01T10:00:00', { $current_url: '/a' }),
      ev('$pageview', 'p1', '2020-04-01T10:01:00', { $current_url: '/b' }),
      ev('$pageview', 'p1', '2020-04-01T10:02:00', { $current_url: '/c' }),
      ev('$pageview', 'p2', '2020-04-01T11:00:00', { $current_url: '/a' }),
      ev('$pageview', 'p2', '2020-04-01T11:01:00', { $current_url: '/b' }),
      ev('$pageview', 'p3', '2020-04-01T12:00:00', { $current_url: '/a' }),
      ev('$pageview', 'p3', '2020-04-01T12:01:00', { $current_url: '/c' }),
      ev('sign up', 'f1', '2021-05-01T10:00:00'),
      ev('view', 'f1', '2021-05-02T10:00:00'),
      ev('pay', 'f1', '2021-05-03T10:00:00'),
      ev('sign up', 'f2', '2021-05-01T11:00:00'),
      ev('view', 'f2', '2021-05-02T11:00:00'),
      ev('sign up', 'f3', '2021-05-01T12:00:00'),
    ]);
    await capture(server, foreign.api_token, [
      ev('watched', 'foreign_user', '2020-01-01T12:00:00', { $browser: 'Chrome', $set: { email: 'ada-foreign@example.com' } }),
      ev('sign up', 'foreign_user', '2021-05-01T12:30:00'),
    ]);
  });
  after(() => server.dispose());

  test("trends: the actors of a day bucket are the legacy persons URL's, their number or events the data point", async () => {
    const legacyTrend = await server.get(`/api/projects/1/insights/trend/?${actorQuery({ events: [{ id: 'watched', order: 0 }], ...JANUARY })}`);
    assert.equal(legacyTrend.status, 200, legacyTrend.text);
    const [item] = legacyTrend.body.result;
    assert.deepEqual(item.data, [6, 2, 1, 0, 0, 0, 0]);
    for (const [index, day] of ['2020-01-01', '2020-01-02', '2020-01-03', '2020-01-04'].entries()) {
      const body = await answer({
        kind: 'ActorsQuery',
        source: { kind: 'InsightActorsQuery', source: trends(), day },
        select: ['person', 'event_count', 'event_distinct_ids'],
      });
      const fromLegacy = await legacy(item.persons_urls[index].url);
      assert.deepEqual(
        body.results.map((row: unknown[]) => row[0]),
        fromLegacy,
      );
      assert.equal(
        body.results.reduce((sum: number, row: unknown[]) => sum + (row[1] as number), 0),
        item.data[index],
      );
      assert.deepEqual(body.types, ['UUID', 'UInt64', 'Array(String)']);
    }
    const first = await answer({
      kind: 'ActorsQuery',
      source: { kind: 'InsightActorsQuery', source: trends(), day: '2020-01-01' },
      select: ['event_count', 'event_distinct_ids'],
    });
    assert.deepEqual(first.results, [
      [3, ['t1']],
      [2, ['t3']],
      [1, ['t2']],
    ]);
    assert.deepEqual(first.columns, ['event_count', 'event_distinct_ids']);
    const t3 = (await persons(undefined, { search: 't3-phone' }))[0]!;
    assert.deepEqual([...t3.distinct_ids].sort(), ['t3', 't3-phone']);

    // Unique users: the number of actors is the data point.
    const dau = trends({ series: [{ kind: 'EventsNode', event: 'watched', math: 'dau' }] });
    assert.deepEqual(firstIds(await persons({ kind: 'InsightActorsQuery', source: dau, day: '2020-01-02' })), ['t4', 't1']);
    const defaults = await answer({ kind: 'ActorsQuery', source: { kind: 'InsightActorsQuery', source: dau, day: '2020-01-02' } });
    assert.deepEqual(defaults.columns, ['person', 'id', 'person.$delete', 'event_distinct_ids']);
    assert.deepEqual(defaults.types, ['UUID', 'UUID', 'UInt8', 'Array(String)']);
    assert.equal(defaults.limit, 100);
    assert.equal(defaults.offset, 0);
    assert.equal(defaults.hasMore, false);
    assert.equal(defaults.missing_actors_count, 0);
    assert.equal(typeof defaults.hogql, 'string');
    assert.equal(defaults.is_cached, false);
    assert.equal(defaults.timezone, 'UTC');
  });

  test('trends: breakdown values, the previous period, aggregate displays', async () => {
    const legacyTrend = await server.get(
      `/api/projects/1/insights/trend/?${actorQuery({ events: [{ id: 'watched', order: 0 }], ...JANUARY, breakdown: '$browser', breakdown_type: 'event' })}`,
    );
    const chrome = legacyTrend.body.result.find((item: { breakdown_value: string }) => item.breakdown_value === 'Chrome');
    const broken = trends({ breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' } });
    const chromeDay = await persons({ kind: 'InsightActorsQuery', source: broken, day: '2020-01-01', breakdown: 'Chrome' });
    assert.deepEqual(firstIds(chromeDay), ['t2']);
    assert.deepEqual(chromeDay, await legacy(chrome.persons_urls[0].url));
    assert.equal(chrome.data[0], 1);
    assert.deepEqual(firstIds(await persons({ kind: 'InsightActorsQuery', source: broken, day: '2020-01-02', breakdown: 'Safari' })), ['t4']);

    // 01-04 … 01-07 compared with 12-31 … 01-03: day 01-05 of the current period is 01-01 of the previous one.
    const compared = { kind: 'TrendsQuery', series: WATCHED, dateRange: { date_from: '2020-01-04', date_to: '2020-01-07' }, compareFilter: { compare: true } };
    const legacyCompared = await server.get(
      `/api/projects/1/insights/trend/?${actorQuery({ events: [{ id: 'watched', order: 0 }], date_from: '2020-01-04', date_to: '2020-01-07', compare: true })}`,
    );
    const previous = legacyCompared.body.result.find((item: { compare_label: string }) => item.compare_label === 'previous');
    assert.deepEqual(previous.data, [0, 6, 2, 1]);
    const previousActors = await persons({ kind: 'InsightActorsQuery', source: compared, day: '2020-01-05', compare: 'previous' });
    assert.deepEqual(firstIds(previousActors), ['t1', 't3', 't2']);
    assert.deepEqual(previousActors, await legacy(previous.persons_urls[1].url));
    assert.deepEqual(await persons({ kind: 'InsightActorsQuery', source: compared, day: '2020-01-05', compare: 'current' }), []);

    // An aggregate display has one value over the range: no day needed.
    const table = trends({ series: [{ kind: 'EventsNode', event: 'watched', math: 'dau' }], trendsFilter: { display: 'ActionsTable' } });
    assert.deepEqual(firstIds(await persons({ kind: 'InsightActorsQuery', source: table })), ['t1', 't3', 't2', 't4']);
  });

  test('funnels: step N, dropped before step N and funnel trends entrance periods, as /persons/funnel/', async () => {
    const steps = await answer(FUNNEL);
    assert.deepEqual(
      steps.results.map((step: { count: number }) => step.count),
      [3, 2, 1],
    );
    const cases: Array<[number, string[]]> = [
      [1, ['f3', 'f2', 'f1']],
      [2, ['f2', 'f1']],
      [3, ['f1']],
      [-2, ['f3']],
      [-3, ['f2']],
    ];
    for (const [funnelStep, expected] of cases) {
      const found = await persons({ kind: 'FunnelsActorsQuery', source: FUNNEL, funnelStep });
      assert.deepEqual(firstIds(found), expected, `funnelStep ${funnelStep}`);
      assert.deepEqual(found, await legacy(`/api/projects/1/persons/funnel/?${actorQuery({ ...FUNNEL_LEGACY, funnel_step: funnelStep })}`));
      if (funnelStep > 0) assert.equal(found.length, steps.results[funnelStep - 1].count);
      else assert.equal(found.length, steps.results[-funnelStep - 2].count - steps.results[-funnelStep - 1].count);
    }
    const matched = await answer({
      kind: 'ActorsQuery',
      source: { kind: 'FunnelsActorsQuery', source: FUNNEL, funnelStep: 3, includeRecordings: true },
      select: ['id', 'matched_recordings'],
    });
    assert.equal(matched.results.length, 1);
    assert.deepEqual(matched.results[0][1], []);

    const funnelTrends = { ...FUNNEL, interval: 'day', funnelsFilter: { funnelVizType: 'trends' } };
    const trend = await answer(funnelTrends);
    assert.equal(trend.results[0].days[0], '2021-05-01');
    assert.equal(trend.results[0].data[0], 33.33);
    const entered = { kind: 'FunnelsActorsQuery', source: funnelTrends, funnelTrendsEntrancePeriodStart: '2021-05-01 00:00:00' };
    const converted = await persons({ ...entered, funnelTrendsDropOff: false });
    const dropped = await persons({ ...entered, funnelTrendsDropOff: true });
    assert.deepEqual(firstIds(converted), ['f1']);
    assert.deepEqual(firstIds(dropped), ['f3', 'f2']);
    const legacyTrends = { ...FUNNEL_LEGACY, funnel_viz_type: 'trends', interval: 'day', entrance_period_start: '2021-05-01 00:00:00' };
    assert.deepEqual(converted, await legacy(`/api/projects/1/persons/funnel/?${actorQuery({ ...legacyTrends, drop_off: false })}`));
    assert.deepEqual(dropped, await legacy(`/api/projects/1/persons/funnel/?${actorQuery({ ...legacyTrends, drop_off: true })}`));
    assert.equal(Math.round((converted.length / (converted.length + dropped.length)) * 10_000) / 100, trend.results[0].data[0]);
  });

  test('correlation: the persons of an event row who converted, and who did not', async () => {
    const funnel = { ...FUNNEL, series: FUNNEL.series.filter((_, index) => index !== 1) };
    const correlation = { kind: 'FunnelCorrelationQuery', source: { kind: 'FunnelsActorsQuery', source: funnel }, funnelCorrelationType: 'events' };
    const rows = await answer(correlation);
    const view = rows.results.events.find((row: { event: { event: string } }) => row.event.event === 'view');
    assert.equal(view.success_count, 1);
    assert.equal(view.failure_count, 1);
    const legacyFunnel = {
      events: [FUNNEL_LEGACY.events[0], { id: 'pay', type: 'events', order: 1 }],
      date_from: '2021-05-01',
      date_to: '2021-05-31',
      funnel_correlation_type: 'events',
    };
    for (const [converted, expected] of [
      [true, ['f1']],
      [false, ['f2']],
    ] as const) {
      const found = await persons({
        kind: 'FunnelCorrelationActorsQuery',
        source: correlation,
        funnelCorrelationPersonConverted: converted,
        funnelCorrelationPersonEntity: { kind: 'EventsNode', event: 'view' },
      });
      assert.deepEqual(firstIds(found), expected);
      assert.deepEqual(
        found,
        await legacy(
          `/api/projects/1/persons/funnel/correlation/?${actorQuery({ ...legacyFunnel, funnel_correlation_person_entity: { id: 'view', type: 'events' }, funnel_correlation_person_converted: converted })}`,
        ),
      );
    }
    const both = await persons({
      kind: 'FunnelCorrelationActorsQuery',
      source: correlation,
      funnelCorrelationPersonEntity: { kind: 'EventsNode', event: 'view' },
    });
    assert.deepEqual(firstIds(both), ['f2', 'f1']);
  });

  test('stickiness: the actors of N days (and of N or more), as /persons/stickiness/', async () => {
    const stickiness = await answer(STICKINESS);
    assert.deepEqual(stickiness.results[0].data, [2, 2, 0, 0, 0, 0, 0]);
    const legacyBase = { events: [{ id: 'watched', order: 0 }], entity_id: 'watched', entity_type: 'events', ...JANUARY };
    for (const day of [1, 2, 3]) {
      const found = await persons({ kind: 'StickinessActorsQuery', source: STICKINESS, day });
      assert.equal(found.length, stickiness.results[0].data[day - 1]);
      assert.deepEqual(found, await legacy(`/api/projects/1/persons/stickiness/?${actorQuery({ ...legacyBase, stickiness_days: day })}`));
      assert.deepEqual(await persons({ kind: 'InsightActorsQuery', source: STICKINESS, day }), found);
    }
    assert.deepEqual(firstIds(await persons({ kind: 'StickinessActorsQuery', source: STICKINESS, day: 1 })), ['t4', 't3']);
    assert.deepEqual(firstIds(await persons({ kind: 'StickinessActorsQuery', source: STICKINESS, day: 1, operator: 'gte' })), ['t4', 't3', 't2', 't1']);
    assert.deepEqual(firstIds(await persons({ kind: 'StickinessActorsQuery', source: STICKINESS, day: 2, operator: 'lte' })), ['t4', 't3', 't2', 't1']);
    assert.deepEqual(firstIds(await persons({ kind: 'StickinessActorsQuery', source: STICKINESS, day: 2, operator: 'gte' })), ['t2', 't1']);
    const paged = await answer({
      kind: 'ActorsQuery',
      source: { kind: 'StickinessActorsQuery', source: STICKINESS, day: 1, operator: 'gte' },
      limit: 3,
      offset: 1,
      select: ['id'],
    });
    assert.equal(paged.results.length, 3);
    assert.equal(paged.hasMore, false);
  });

  test('lifecycle: the actors of a status on a day, as /persons/lifecycle/', async () => {
    const lifecycle = await answer(LIFECYCLE);
    const byStatus: Record<string, number[]> = Object.fromEntries(
      lifecycle.results.map((item: { status: string; data: number[] }) => [item.status, item.data]),
    );
    assert.deepEqual(byStatus, { new: [1, 0, 1, 0], returning: [0, 1, 0, 0], resurrecting: [0, 1, 0, 1], dormant: [0, 0, -2, -1] });
    const days = ['2020-02-01', '2020-02-02', '2020-02-03', '2020-02-04'];
    const expected: Record<string, string[][]> = {
      new: [['l1'], [], ['l3'], []],
      returning: [[], ['l1'], [], []],
      resurrecting: [[], ['l2'], [], ['l1']],
      dormant: [[], [], ['l2', 'l1'], ['l3']],
    };
    for (const status of ['new', 'returning', 'resurrecting', 'dormant']) {
      for (const [index, day] of days.entries()) {
        const found = await persons({ kind: 'InsightActorsQuery', source: LIFECYCLE, day, status });
        assert.deepEqual(firstIds(found), expected[status]![index], `${status} ${day}`);
        assert.equal(found.length, Math.abs((byStatus as Record<string, number[]>)[status]![index]!));
        assert.deepEqual(
          found,
          await legacy(
            `/api/projects/1/persons/lifecycle/?${actorQuery({ events: [{ id: 'play', order: 0 }], date_from: '2020-02-01', date_to: '2020-02-04', target_date: day, lifecycle_type: status })}`,
          ),
        );
      }
    }
  });

  test('retention: the actors of a cohort with their appearances, as /persons/retention/', async () => {
    const table = await answer(RETENTION);
    assert.deepEqual(
      table.results.map((row: { values: Array<{ count: number }> }) => row.values.map((value) => value.count)),
      [
        [2, 1, 1, 1],
        [2, 0, 1, 0],
        [1, 0, 0, 0],
        [1, 0, 0, 0],
      ],
    );
    const legacyBase = {
      target_entity: { id: 'visit', type: 'events' },
      returning_entity: { id: 'visit', type: 'events' },
      period: 'Day',
      total_intervals: 4,
      date_to: '2020-03-04',
    };
    const cohorts: Array<[number, Array<[string, number[]]>]> = [
      [
        0,
        [
          ['r1', [0, 1, 3]],
          ['r2', [0, 2]],
        ],
      ],
      [
        1,
        [
          ['r1', [0, 2]],
          ['r3', [0]],
        ],
      ],
      [2, [['r2', [0]]]],
    ];
    for (const [interval, expected] of cohorts) {
      const body = await answer({
        kind: 'ActorsQuery',
        source: { kind: 'InsightActorsQuery', source: RETENTION, interval },
        select: ['person', 'appearances'],
      });
      assert.deepEqual(
        body.results.map((row: [Person, number[]]) => [row[0].distinct_ids[0], row[1]]),
        expected,
      );
      assert.deepEqual(body.types, ['UUID', 'Array(UInt16)']);
      assert.equal(body.results.length, table.results[interval].values[0].count);
      assert.deepEqual(
        body.results.map((row: [Person]) => row[0]),
        await legacy(`/api/projects/1/persons/retention/?${actorQuery({ ...legacyBase, selected_interval: interval })}`),
      );
    }
    const ordered = await answer({
      kind: 'ActorsQuery',
      source: { kind: 'InsightActorsQuery', source: RETENTION, interval: 0 },
      select: ['appearances'],
      orderBy: ['length(appearances) ASC', 'actor_id'],
    });
    assert.deepEqual(ordered.results, [[[0, 2]], [[0, 1, 3]]]);
  });

  test('paths: the actors of an edge and of a drop-off, as /persons/path/', async () => {
    const edges = await answer(paths({}));
    const ab = edges.results.find((edge: { source: string; target: string }) => edge.source === '1_/a' && edge.target === '2_/b');
    assert.equal(ab.value, 2);
    const legacyBase = { insight: 'PATHS', include_event_types: ['$pageview'], date_from: '2020-04-01', date_to: '2020-04-02' };
    const cases: Array<[Record<string, string>, Record<string, string>, string[]]> = [
      [{ pathStartKey: '1_/a', pathEndKey: '2_/b' }, { path_start_key: '1_/a', path_end_key: '2_/b' }, ['p2', 'p1']],
      [{ pathEndKey: '2_/c' }, { path_end_key: '2_/c' }, ['p3']],
      [{ pathDropoffKey: '2_/b' }, { path_dropoff_key: '2_/b' }, ['p2']],
    ];
    for (const [keys, legacyKeys, expected] of cases) {
      const found = await persons({ kind: 'InsightActorsQuery', source: paths(keys) });
      assert.deepEqual(firstIds(found), expected, JSON.stringify(keys));
      assert.deepEqual(found, await legacy(`/api/projects/1/persons/path/?${actorQuery({ ...legacyBase, ...legacyKeys })}`));
    }
  });

  test('select, orderBy, limit, offset and hasMore', async () => {
    const source = { kind: 'InsightActorsQuery', source: trends(), day: '2020-01-01' };
    const all = await answer({ kind: 'ActorsQuery', source, select: ['id', 'event_count', 'created_at'], orderBy: ['event_count ASC'] });
    assert.deepEqual(all.columns, ['id', 'event_count', 'created_at']);
    assert.deepEqual(all.types, ['UUID', 'UInt64', "DateTime64(3, 'UTC')"]);
    const uuids = Object.fromEntries((await persons(source)).map((person) => [person.distinct_ids[0], person]));
    assert.deepEqual(all.results, [
      [uuids.t2!.uuid, 1, uuids.t2!.created_at],
      [uuids.t3!.uuid, 2, uuids.t3!.created_at],
      [uuids.t1!.uuid, 3, uuids.t1!.created_at],
    ]);
    const second = await answer({ kind: 'ActorsQuery', source, select: ['event_count'], orderBy: ['event_count ASC'], limit: 1, offset: 1 });
    assert.deepEqual(second.results, [[2]]);
    assert.equal(second.hasMore, true);
    assert.equal(second.limit, 1);
    assert.equal(second.offset, 1);
    const last = await answer({ kind: 'ActorsQuery', source, select: ['event_count'], limit: 2, offset: 2 });
    assert.deepEqual(last.results, [[1]]);
    assert.equal(last.hasMore, false);
    // created_at selected and no order: newest first.
    const newest = await answer({ kind: 'ActorsQuery', source, select: ['created_at', 'event_count'] });
    assert.deepEqual(
      newest.results.map((row: unknown[]) => row[1]),
      [2, 1, 3],
    );
    const clamped = await answer({ kind: 'ActorsQuery', source, select: ['id'], limit: 5000 });
    assert.equal(clamped.limit, 1000);
    const firstPage = await answer({ kind: 'ActorsQuery', source: { kind: 'FunnelsActorsQuery', source: FUNNEL, funnelStep: 1 }, select: ['id'], limit: 2 });
    assert.equal(firstPage.results.length, 2);
    assert.equal(firstPage.hasMore, true);
  });

  test("without a source: the project's persons, newest first, with search and properties", async () => {
    const list = await server.get('/api/projects/1/persons/?limit=100');
    const everyone = await answer({ kind: 'ActorsQuery', select: ['person', 'id', 'created_at'] });
    assert.deepEqual(
      everyone.results.map((row: [Person]) => row[0]),
      list.body.results,
    );
    assert.equal(everyone.results.length, 16);
    assert.ok(!JSON.stringify(everyone.results).includes('foreign'));
    const page = await answer({ kind: 'ActorsQuery', select: ['id'], limit: 2, offset: 1 });
    assert.deepEqual(page.results, [[list.body.results[1].uuid], [list.body.results[2].uuid]]);
    assert.equal(page.hasMore, true);
    assert.deepEqual(firstIds(await persons(undefined, { search: 'ADA' })), ['t1']);
    assert.deepEqual(firstIds(await persons(undefined, { search: 'f2' })), ['f2']);
    assert.deepEqual(firstIds(await persons(undefined, { properties: [{ key: 'email', value: 'bob@example.com', operator: 'exact', type: 'person' }] })), [
      't2',
    ]);
    assert.deepEqual(firstIds(await persons(undefined, { fixedProperties: [{ key: 'email', operator: 'is_set', type: 'person' }] })), ['t2', 't1']);
    // With a source, search and properties narrow its actors.
    const source = { kind: 'InsightActorsQuery', source: trends(), day: '2020-01-01' };
    assert.deepEqual(firstIds(await persons(source, { search: 'ada' })), ['t1']);
    assert.deepEqual(firstIds(await persons(source, { properties: [{ key: 'email', operator: 'is_set', type: 'person' }] })), ['t1', 't2']);
  });

  test("another project's persons never appear", async () => {
    const found = await persons({ kind: 'InsightActorsQuery', source: trends(), day: '2020-01-01' });
    assert.deepEqual(firstIds(found), ['t1', 't3', 't2']);
    const step = await persons({ kind: 'FunnelsActorsQuery', source: FUNNEL, funnelStep: 1 });
    assert.deepEqual(firstIds(step), ['f3', 'f2', 'f1']);
    const theirs = await runQuery(server, { kind: 'ActorsQuery' }, { project: foreign.id });
    assert.equal(theirs.status, 200, theirs.text);
    assert.deepEqual(
      theirs.body.results.map((row: [Person]) => row[0].distinct_ids),
      [['foreign_user']],
    );
  });

  test('wrapped in a DataTableNode, and the sources sent alone', async () => {
    const query = { kind: 'ActorsQuery', source: { kind: 'FunnelsActorsQuery', source: FUNNEL, funnelStep: 2 } };
    const direct = await answer(query);
    const wrapped = await answer({ kind: 'DataTableNode', source: query });
    assert.deepEqual(wrapped.results, direct.results);
    assert.deepEqual(wrapped.columns, direct.columns);
    const alone = await answer(query.source);
    assert.deepEqual(alone.results, direct.results);
    assert.deepEqual(alone.columns, ['person', 'id', 'person.$delete']);
    const insightAlone = await answer({ kind: 'InsightActorsQuery', source: LIFECYCLE, day: '2020-02-03', status: 'dormant' });
    assert.deepEqual(
      insightAlone.results.map((row: [Person]) => row[0].distinct_ids[0]),
      ['l2', 'l1'],
    );
    await refused(
      { kind: 'DataTableNode', source: { kind: 'ActorsQuery', source: { kind: 'FunnelsActorsQuery', source: FUNNEL, funnelStep: 0 } } },
      'query.source.source.funnelStep',
    );
  });

  test('scopes: query:read or insight:read', async () => {
    const query = { kind: 'ActorsQuery', source: { kind: 'FunnelsActorsQuery', source: FUNNEL, funnelStep: 3 } };
    assert.equal((await answer(query, keys['query:read'])).results.length, 1);
    assert.equal((await answer(query, keys['insight:read'])).results.length, 1);
    const denied = await runQuery(server, query, { key: keys['person:read'] });
    assert.equal(denied.status, 403, denied.text);
  });

  test('bad input: 400 naming the field from the body root', async () => {
    const trendsSource = { kind: 'InsightActorsQuery', source: trends(), day: '2020-01-01' };
    await refused({ kind: 'ActorsQuery', source: trendsSource, select: ['person', 'nope'] }, 'query.select.1');
    await refused({ kind: 'ActorsQuery', source: trendsSource, select: ['appearances'] }, 'query.select.0');
    await refused({ kind: 'ActorsQuery', source: trendsSource, orderBy: ['event_count DESC', 'nope ASC'] }, 'query.orderBy.1');
    await refused({ kind: 'ActorsQuery', source: trendsSource, orderBy: 'event_count' }, 'query.orderBy');
    await refused({ kind: 'ActorsQuery', source: trendsSource, offset: -1 }, 'query.offset');
    await refused({ kind: 'ActorsQuery', source: trendsSource, limit: 0 }, 'query.limit');
    await refused({ kind: 'ActorsQuery', properties: [{ key: '$browser', value: 'Chrome', type: 'event' }] }, 'query.properties.0.type');
    await refused(
      { kind: 'ActorsQuery', source: { kind: 'InsightActorsQuery', source: trends() } },
      'query.source.day',
      'A trends actors query needs the day of the data point.',
    );
    await refused({ kind: 'ActorsQuery', source: { kind: 'InsightActorsQuery', source: trends(), day: 'someday' } }, 'query.source.day');
    await refused({ kind: 'ActorsQuery', source: { ...trendsSource, series: 1 } }, 'query.source.series');
    await refused(
      { kind: 'ActorsQuery', source: { ...trendsSource, source: trends({ series: [{ kind: 'EventsNode', event: 5 }] }) } },
      'query.source.source.series.0.event',
    );
    await refused({ kind: 'ActorsQuery', source: { kind: 'FunnelsActorsQuery', source: FUNNEL, funnelStep: 0 } }, 'query.source.funnelStep');
    await refused({ kind: 'ActorsQuery', source: { kind: 'FunnelsActorsQuery', source: FUNNEL, funnelStep: -1 } }, 'query.source.funnelStep');
    await refused({ kind: 'ActorsQuery', source: { kind: 'FunnelsActorsQuery', source: FUNNEL, funnelStep: 4 } }, 'query.source.funnelStep');
    await refused({ kind: 'ActorsQuery', source: { kind: 'FunnelsActorsQuery', source: FUNNEL } }, 'query.source.funnelStep');
    await refused({ kind: 'ActorsQuery', source: { kind: 'InsightActorsQuery', source: LIFECYCLE, day: '2020-02-01' } }, 'query.source.status');
    await refused(
      { kind: 'ActorsQuery', source: { kind: 'InsightActorsQuery', source: LIFECYCLE, day: '2020-02-01', status: 'zombie' } },
      'query.source.status',
    );
    await refused({ kind: 'ActorsQuery', source: { kind: 'InsightActorsQuery', source: LIFECYCLE, status: 'new' } }, 'query.source.day');
    await refused({ kind: 'ActorsQuery', source: { kind: 'StickinessActorsQuery', source: STICKINESS } }, 'query.source.day');
    await refused({ kind: 'ActorsQuery', source: { kind: 'StickinessActorsQuery', source: STICKINESS, day: 1, operator: 'more' } }, 'query.source.operator');
    await refused({ kind: 'ActorsQuery', source: { kind: 'StickinessActorsQuery', source: LIFECYCLE, day: 1 } }, 'query.source.source.kind');
    await refused({ kind: 'ActorsQuery', source: { kind: 'InsightActorsQuery', source: RETENTION, interval: 4 } }, 'query.source.interval');
    await refused(
      {
        kind: 'ActorsQuery',
        source: {
          kind: 'FunnelCorrelationActorsQuery',
          source: { kind: 'FunnelCorrelationQuery', source: { kind: 'FunnelsActorsQuery', source: FUNNEL }, funnelCorrelationType: 'events' },
        },
      },
      'query.source.funnelCorrelationPersonEntity',
    );
    await refused({ kind: 'ActorsQuery', source: { kind: 'EventsQuery' } }, 'query.source.kind');
    await refused({ kind: 'ActorsQuery', source: { kind: 'InsightActorsQuery' } }, 'query.source.source');
    await refused({ kind: 'InsightActorsQuery', source: trends() }, 'query.day');
    await refused({ kind: 'FunnelsActorsQuery', source: FUNNEL, funnelStep: 0 }, 'query.funnelStep');
  });
});
