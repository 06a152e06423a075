import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { actorQuery, peopleIds } from '../support/actors.js';
import { validationError } from '../support/persons.js';
import { ERRORS, TallyServer, type ApiResponse } from '../support/tally.js';

/**
 * Lifecycle through the trend endpoint (`insight=LIFECYCLE` / `shown_as=Lifecycle`), restating
 * PostHog's legacy lifecycle tests (posthog/queries/test/test_lifecycle.py) with their numbers,
 * on events captured through /batch. A person is created by its first event, as PostHog's tests
 * create each person at its first timestamp.
 *
 * The main data (each scenario has a project of its own):
 *   p1 $pageview 01-11, 01-12, 01-13, 01-15, 01-17, 01-19 (email test@posthog.com)
 *   p2 $pageview 01-09, 01-12
 *   p3 $pageview 01-12
 *   p4 $pageview 01-15
 */
const MAIN: Array<[string, string[]]> = [
  ['p1', ['2020-01-11T12:00:00Z', '2020-01-12T12:00:00Z', '2020-01-13T12:00:00Z', '2020-01-15T12:00:00Z', '2020-01-17T12:00:00Z', '2020-01-19T12:00:00Z']],
  ['p2', ['2020-01-09T12:00:00Z', '2020-01-12T12:00:00Z']],
  ['p3', ['2020-01-12T12:00:00Z']],
  ['p4', ['2020-01-15T12:00:00Z']],
];

/** PostHog's expectations for MAIN over 2020-01-12 … 01-19 by day. */
const MAIN_EXPECTED = {
  new: [1, 0, 0, 1, 0, 0, 0, 0],
  returning: [1, 1, 0, 0, 0, 0, 0, 0],
  resurrecting: [1, 0, 0, 1, 0, 1, 0, 1],
  dormant: [0, -2, -1, 0, -2, 0, -1, 0],
};

const RANGE = { date_from: '2020-01-12T00:00:00Z', date_to: '2020-01-19T00:00:00Z' };
const PAGEVIEWS = [{ id: '$pageview', type: 'events', order: 0 }];

type Event = { event: string; distinct_id: string; timestamp: string; properties?: Record<string, unknown> };

/** Each person's events in time order, its first one setting its properties. */
function personEvents(
  data: Array<[string, string[]]>,
  event = '$pageview',
  properties: (id: string) => Record<string, unknown> = (id) => ({ name: id }),
): Event[] {
  return data.flatMap(([id, timestamps]) =>
    timestamps.map((timestamp, index) => ({
      event,
      distinct_id: id,
      timestamp,
      properties: index === 0 ? { $set: properties(id) } : {},
    })),
  );
}

/** `{status: data}` of a lifecycle result, whatever order it lists them in. */
function byStatus(result: Array<{ status: string; data: number[] }>): Record<string, number[]> {
  return Object.fromEntries(result.map((item) => [item.status, item.data]));
}

describe('lifecycle insight (/insights/trend/ with insight=LIFECYCLE)', () => {
  let server: TallyServer;
  const projects: Record<string, { id: number; api_token: string }> = {};
  const keys: Record<string, string> = {};

  const send = async (project: string, batch: Event[]) => {
    const response = await server.request('POST', '/batch/', { key: null, body: { api_key: projects[project]!.api_token, batch } });
    assert.equal(response.status, 200, response.text);
  };
  const lifecycle = (project: string, params: Record<string, unknown>, key?: string): Promise<ApiResponse> =>
    server.get(`/api/projects/${projects[project]!.id}/insights/trend/?${actorQuery({ shown_as: 'Lifecycle', ...params })}`, { key });
  const lifecycleOk = async (project: string, params: Record<string, unknown>) => {
    const response = await lifecycle(project, params);
    assert.equal(response.status, 200, response.text);
    return response.body.result as Array<Record<string, any>>;
  };
  const actors = (project: string, params: Record<string, unknown>) =>
    server.get(`/api/projects/${projects[project]!.id}/persons/lifecycle/?${actorQuery({ shown_as: 'Lifecycle', ...params })}`);

  /** Every data point's persons URL answers as many persons as the point counts (dormant counts are negative). */
  async function assertActorsCountEveryPoint(result: Array<Record<string, any>>) {
    for (const item of result) {
      for (const [index, point] of (item.persons_urls as Array<{ url: string }>).entries()) {
        const response = await server.get(`/${point.url}`);
        assert.equal(peopleIds(response).length, Math.abs(item.data[index]), `${item.status} ${item.days[index]}: ${point.url}`);
      }
    }
  }

  before(async () => {
    server = new TallyServer(undefined, {});
    for (const [name, timezone] of [
      ['main', undefined],
      ['anyEvent', undefined],
      ['props', undefined],
      ['repeat', undefined],
      ['weeks', undefined],
      ['months', undefined],
      ['timezones', undefined],
      ['paginated', undefined],
    ] as Array<[string, string | undefined]>) {
      projects[name] = server.createProject(`Lifecycle ${name}`, timezone);
    }
    server.personalApiKey = server.createKey('*');
    keys.insightRead = server.createKey('insight:read');
    keys.personRead = server.createKey('person:read');
    keys.projectRead = server.createKey('project:read');
    await server.start();

    await send(
      'main',
      personEvents(MAIN, '$pageview', (id) => ({ name: id, ...(id === 'p1' ? { email: 'test@posthog.com' } : {}) })),
    );
    await send('anyEvent', [...personEvents(MAIN.slice(0, 2)), ...personEvents(MAIN.slice(2), '$other')]);
    await send('props', [
      ...personEvents([MAIN[0]!]).map((event) => ({ ...event, properties: { ...event.properties, $number: 1 } })),
      ...personEvents(MAIN.slice(1)),
    ]);
    await send('repeat', [
      { event: '$pageview', distinct_id: 'p1', timestamp: '2020-01-12T12:00:00Z', properties: { $set: { name: 'p1' } } },
      { event: '$identify', distinct_id: 'p1', timestamp: '2020-01-12T12:00:00Z', properties: { $anon_distinct_id: 'another_p1' } },
      { event: '$pageview', distinct_id: 'another_p1', timestamp: '2020-01-14T12:00:00Z' },
      { event: '$pageview', distinct_id: 'p1', timestamp: '2020-01-15T12:00:00Z' },
      { event: '$pageview', distinct_id: 'p1', timestamp: '2020-01-17T12:00:00Z' },
      { event: '$pageview', distinct_id: 'p1', timestamp: '2020-01-19T12:00:00Z' },
    ]);
    await send(
      'weeks',
      personEvents([
        [
          'p1',
          ['2020-02-01T12:00:00Z', '2020-02-05T12:00:00Z', '2020-02-10T12:00:00Z', '2020-02-15T12:00:00Z', '2020-02-27T12:00:00Z', '2020-03-02T12:00:00Z'],
        ],
        ['p2', ['2020-02-11T12:00:00Z', '2020-02-18T12:00:00Z']],
        ['p3', ['2020-02-12T12:00:00Z']],
        ['p4', ['2020-02-27T12:00:00Z']],
      ]),
    );
    await send(
      'months',
      personEvents([
        [
          'p1',
          ['2020-01-11T12:00:00Z', '2020-02-12T12:00:00Z', '2020-03-13T12:00:00Z', '2020-05-15T12:00:00Z', '2020-07-17T12:00:00Z', '2020-09-19T12:00:00Z'],
        ],
        ['p2', ['2019-12-09T12:00:00Z', '2020-02-12T12:00:00Z']],
        ['p3', ['2020-02-12T12:00:00Z']],
        ['p4', ['2020-05-15T12:00:00Z']],
      ]),
    );
    await send(
      'timezones',
      personEvents([
        [
          'p1',
          ['2020-01-11T23:00:00Z', '2020-01-12T01:00:00Z', '2020-01-13T12:00:00Z', '2020-01-15T12:00:00Z', '2020-01-17T12:00:00Z', '2020-01-19T12:00:00Z'],
        ],
        ...MAIN.slice(1),
      ]),
    );
    await send(
      'paginated',
      Array.from({ length: 150 }, (_, index) => ({ event: '$pageview', distinct_id: `person${index}`, timestamp: '2020-01-15T12:00:00Z' })),
    );
  });
  after(() => server.dispose());

  test('test_lifecycle_trend: new, returning, resurrecting and dormant per day, in the legacy shape', async () => {
    const result = await lifecycleOk('main', { events: PAGEVIEWS, ...RANGE });
    assert.deepEqual(
      result.map((item) => item.status),
      ['new', 'returning', 'resurrecting', 'dormant'],
    );
    assert.deepEqual(byStatus(result as any), MAIN_EXPECTED);
    const [item] = result;
    const days = ['2020-01-12', '2020-01-13', '2020-01-14', '2020-01-15', '2020-01-16', '2020-01-17', '2020-01-18', '2020-01-19'];
    assert.deepEqual(Object.keys(item!), ['action', 'label', 'count', 'data', 'labels', 'days', 'status', 'persons_urls']);
    assert.equal(item!.label, '$pageview - new');
    assert.equal(item!.count, 2);
    assert.deepEqual(item!.days, days);
    assert.deepEqual(item!.labels, ['12-Jan-2020', '13-Jan-2020', '14-Jan-2020', '15-Jan-2020', '16-Jan-2020', '17-Jan-2020', '18-Jan-2020', '19-Jan-2020']);
    assert.equal(item!.action.id, '$pageview');
    assert.equal(item!.action.type, 'events');
    assert.equal(item!.action.order, 0);
    assert.equal(result[3]!.count, -6);
    assert.equal(result[3]!.label, '$pageview - dormant');
    const dormantPoint = result[3]!.persons_urls[1];
    assert.deepEqual(dormantPoint.filter, {
      entity_id: '$pageview',
      entity_type: 'events',
      entity_math: null,
      target_date: '2020-01-13',
      entity_order: 0,
      lifecycle_type: 'dormant',
    });
    assert.match(dormantPoint.url, new RegExp(`^api/projects/${projects.main!.id}/persons/lifecycle/\\?`));
    await assertActorsCountEveryPoint(result);
  });

  test('test_lifecycle_trend_any_event: a series of all events', async () => {
    const result = await lifecycleOk('anyEvent', { events: [{ id: null, type: 'events', order: 0 }], ...RANGE });
    assert.deepEqual(byStatus(result as any), MAIN_EXPECTED);
    assert.equal(result[0]!.label, 'All events - new');
    await assertActorsCountEveryPoint(result);
  });

  test('test_lifecycle_trend_action: an action series is named as the action', async () => {
    const action = await server.bodyOf('POST', `/api/projects/${projects.main!.id}/actions/`, 201, {
      body: { name: 'Viewed a page', steps: [{ event: '$pageview' }] },
    });
    const result = await lifecycleOk('main', { actions: [{ id: action.id, type: 'actions', order: 0 }], ...RANGE });
    assert.deepEqual(byStatus(result as any), MAIN_EXPECTED);
    assert.equal(result[0]!.label, 'Viewed a page - new');
    assert.equal(result[0]!.action.name, 'Viewed a page');
    await assertActorsCountEveryPoint(result);
  });

  test('test_lifecycle_trend_prop_filtering: global and series event properties, and series person properties', async () => {
    const expected = {
      new: [0, 0, 0, 0, 0, 0, 0, 0],
      returning: [1, 1, 0, 0, 0, 0, 0, 0],
      resurrecting: [0, 0, 0, 1, 0, 1, 0, 1],
      dormant: [0, 0, -1, 0, -1, 0, -1, 0],
    };
    const number = [{ key: '$number', value: 1 }];
    const global = await lifecycleOk('props', { events: PAGEVIEWS, properties: number, ...RANGE });
    assert.deepEqual(byStatus(global as any), expected);
    await assertActorsCountEveryPoint(global);
    const series = await lifecycleOk('props', { events: [{ ...PAGEVIEWS[0], properties: number }], ...RANGE });
    assert.deepEqual(byStatus(series as any), expected);
    const person = await lifecycleOk('props', { events: [{ ...PAGEVIEWS[0], properties: [{ key: 'name', value: 'p1', type: 'person' }] }], ...RANGE });
    assert.deepEqual(byStatus(person as any), expected);
    await assertActorsCountEveryPoint(person);
  });

  test('test_lifecycle_trends_distinct_id_repeat: the events of both distinct ids are one person', async () => {
    const result = await lifecycleOk('repeat', { events: PAGEVIEWS, ...RANGE });
    assert.deepEqual(byStatus(result as any), {
      new: [1, 0, 0, 0, 0, 0, 0, 0],
      returning: [0, 0, 0, 1, 0, 0, 0, 0],
      resurrecting: [0, 0, 1, 0, 0, 1, 0, 1],
      dormant: [0, -1, 0, 0, -1, 0, -1, 0],
    });
    await assertActorsCountEveryPoint(result);
  });

  test('test_lifecycle_trend_people: the persons of a status and day', async () => {
    const params = { events: PAGEVIEWS, ...RANGE };
    const returning = await actors('main', { ...params, lifecycle_type: 'returning', target_date: '2020-01-13T00:00:00Z' });
    assert.deepEqual(peopleIds(returning), ['p1']);
    assert.deepEqual(Object.keys(returning.body).sort(), ['initial', 'is_cached', 'last_refresh', 'missing_persons', 'next', 'results']);
    const dormant13 = await actors('main', { ...params, lifecycle_type: 'dormant', target_date: '2020-01-13T00:00:00Z' });
    // Newest person first: p3 was created on 01-12, p2 on 01-09.
    assert.deepEqual(peopleIds(dormant13), ['p3', 'p2']);
    const dormant14 = await actors('main', { ...params, lifecycle_type: 'dormant', target_date: '2020-01-14T00:00:00Z' });
    assert.deepEqual(peopleIds(dormant14), ['p1']);
  });

  test('test_lifecycle_trend_people_paginated: 100 persons, then the 50 of the next page, newest id first', async () => {
    const params = { events: PAGEVIEWS, ...RANGE, lifecycle_type: 'new', target_date: '2020-01-15T00:00:00Z' };
    const first = await actors('paginated', params);
    assert.equal(peopleIds(first).length, 100);
    const ids = first.body.results[0].people.map((person: { id: number }) => person.id);
    assert.deepEqual(
      ids,
      [...ids].sort((a: number, b: number) => b - a),
    );
    const next = new URL(first.body.next);
    assert.equal(next.searchParams.get('offset'), '100');
    const second = await server.get(next.pathname + next.search);
    assert.equal(peopleIds(second).length, 50);
    assert.equal(second.body.next, null);
    const all = [...peopleIds(first), ...peopleIds(second)];
    assert.equal(new Set(all).size, 150);
    const result = await lifecycleOk('paginated', { events: PAGEVIEWS, ...RANGE });
    assert.deepEqual(byStatus(result as any).new, [0, 0, 0, 150, 0, 0, 0, 0]);
  });

  test('test_lifecycle_trend_all_time: date_from=all starts at the first event', async () => {
    const result = await lifecycleOk('main', { events: PAGEVIEWS, date_from: 'all', date_to: '2020-01-17' });
    assert.equal(result[0]!.days[0], '2020-01-09');
    assert.deepEqual(byStatus(result as any), {
      new: [1, 0, 1, 1, 0, 0, 1, 0, 0],
      returning: [0, 0, 0, 1, 1, 0, 0, 0, 0],
      resurrecting: [0, 0, 0, 1, 0, 0, 1, 0, 1],
      dormant: [0, -1, 0, 0, -2, -1, 0, -2, 0],
    });
    await assertActorsCountEveryPoint(result);
  });

  test("test_lifecycle_trend_weeks: weeks of the project (Monday here, as PostHog's ClickHouse weeks)", async () => {
    const patched = await server.patch(`/api/projects/${projects.weeks!.id}/`, { week_start_day: 1 });
    assert.equal(patched.status, 200, patched.text);
    const result = await lifecycleOk('weeks', {
      events: PAGEVIEWS,
      date_from: '2020-02-05T00:00:00Z',
      date_to: '2020-03-09T00:00:00Z',
      interval: 'week',
    });
    assert.deepEqual(result[0]!.days, ['2020-02-03', '2020-02-10', '2020-02-17', '2020-02-24', '2020-03-02', '2020-03-09']);
    assert.deepEqual(byStatus(result as any), {
      new: [0, 2, 0, 1, 0, 0],
      returning: [1, 1, 1, 0, 1, 0],
      resurrecting: [0, 0, 0, 1, 0, 0],
      dormant: [0, 0, -2, -1, -1, -1],
    });
    await assertActorsCountEveryPoint(result);
  });

  test('test_lifecycle_trend_months', async () => {
    const result = await lifecycleOk('months', {
      events: PAGEVIEWS,
      date_from: '2020-02-01T00:00:00Z',
      date_to: '2020-09-01T00:00:00Z',
      interval: 'month',
    });
    assert.equal(result[0]!.days[0], '2020-02-01');
    assert.deepEqual(byStatus(result as any), MAIN_EXPECTED);
    await assertActorsCountEveryPoint(result);
  });

  test("test_filter_test_accounts: the project's test-account filters leave p1 out", async () => {
    const patched = await server.patch(`/api/projects/${projects.main!.id}/`, {
      test_account_filters: [{ key: 'email', value: '@posthog.com', operator: 'not_icontains', type: 'person' }],
    });
    assert.equal(patched.status, 200, patched.text);
    const result = await lifecycleOk('main', { events: PAGEVIEWS, ...RANGE, filter_test_accounts: true });
    assert.deepEqual(byStatus(result as any), {
      new: [1, 0, 0, 1, 0, 0, 0, 0],
      returning: [0, 0, 0, 0, 0, 0, 0, 0],
      resurrecting: [1, 0, 0, 0, 0, 0, 0, 0],
      dormant: [0, -2, 0, 0, -1, 0, 0, 0],
    });
    await assertActorsCountEveryPoint(result);
    const dormant = await actors('main', {
      events: PAGEVIEWS,
      ...RANGE,
      filter_test_accounts: true,
      lifecycle_type: 'dormant',
      target_date: '2020-01-13T00:00:00Z',
    });
    assert.deepEqual(peopleIds(dormant), ['p3', 'p2']);
  });

  test('test_timezones: periods in the project timezone', async () => {
    const params = { events: PAGEVIEWS, date_from: '2020-01-12', date_to: '2020-01-19' };
    const utc = await lifecycleOk('timezones', params);
    assert.deepEqual(byStatus(utc as any), MAIN_EXPECTED);
    const patched = await server.patch(`/api/projects/${projects.timezones!.id}/`, { timezone: 'US/Pacific' });
    assert.equal(patched.status, 200, patched.text);
    const pacific = await lifecycleOk('timezones', params);
    assert.deepEqual(byStatus(pacific as any), {
      new: [1, 0, 0, 1, 0, 0, 0, 0],
      returning: [0, 0, 0, 0, 0, 0, 0, 0],
      resurrecting: [1, 1, 0, 1, 0, 1, 0, 1],
      dormant: [-1, -2, -1, 0, -2, 0, -1, 0],
    });
    await assertActorsCountEveryPoint(pacific);
  });

  test('hours: an hourly lifecycle, with hour days and labels', async () => {
    const result = await lifecycleOk('main', { events: PAGEVIEWS, date_from: '2020-01-12T11:00:00Z', date_to: '2020-01-12T13:00:00Z', interval: 'hour' });
    assert.deepEqual(result[0]!.days, ['2020-01-12 11:00:00', '2020-01-12 12:00:00', '2020-01-12 13:00:00']);
    assert.deepEqual(result[0]!.labels, ['12-Jan-2020 11:00', '12-Jan-2020 12:00', '12-Jan-2020 13:00']);
    // p3 is created by its 12:00 event; p1 and p2 come back after a day away.
    assert.deepEqual(byStatus(result as any), { new: [0, 1, 0], returning: [0, 0, 0], resurrecting: [0, 2, 0], dormant: [0, 0, -3] });
    await assertActorsCountEveryPoint(result);
  });

  test('a range that ends before it starts has no periods', async () => {
    const result = await lifecycleOk('main', { events: PAGEVIEWS, date_from: '2020-01-19', date_to: '2020-01-12' });
    assert.deepEqual(
      result.map((item) => [item.status, item.data, item.days]),
      [
        ['new', [], []],
        ['returning', [], []],
        ['resurrecting', [], []],
        ['dormant', [], []],
      ],
    );
  });

  test('GET and POST, insight=LIFECYCLE or shown_as, CSV, with and without slash, and under /api/environments/', async () => {
    const id = projects.main!.id;
    const params = { events: PAGEVIEWS, ...RANGE };
    const byInsight = await server.get(`/api/projects/${id}/insights/trend/?${actorQuery({ insight: 'LIFECYCLE', ...params })}`);
    assert.equal(byInsight.status, 200, byInsight.text);
    assert.deepEqual(byStatus(byInsight.body.result), MAIN_EXPECTED);
    assert.deepEqual(Object.keys(byInsight.body).sort(), ['is_cached', 'last_refresh', 'next', 'result', 'timezone']);
    assert.equal(byInsight.body.next, null);
    assert.equal(byInsight.body.timezone, 'UTC');
    const posted = await server.post(`/api/projects/${id}/insights/trend/`, { insight: 'LIFECYCLE', ...params });
    assert.equal(posted.status, 200, posted.text);
    assert.deepEqual(byStatus(posted.body.result), MAIN_EXPECTED);
    const noSlash = await server.get(`/api/projects/${id}/insights/trend?${actorQuery({ shown_as: 'Lifecycle', ...params })}`);
    assert.deepEqual(byStatus(noSlash.body.result), MAIN_EXPECTED);
    const environment = await server.get(`/api/environments/${id}/insights/trend/?${actorQuery({ shown_as: 'Lifecycle', ...params })}`);
    assert.deepEqual(byStatus(environment.body.result), MAIN_EXPECTED);
    const csv = await lifecycle('main', { ...params, format: 'csv' });
    assert.equal(csv.status, 200);
    assert.match(csv.headers.get('content-type') ?? '', /text\/csv/);
    assert.deepEqual(csv.text.trim().split(/\r?\n/), [
      'series,12-Jan-2020,13-Jan-2020,14-Jan-2020,15-Jan-2020,16-Jan-2020,17-Jan-2020,18-Jan-2020,19-Jan-2020',
      '$pageview - new,1.0,0.0,0.0,1.0,0.0,0.0,0.0,0.0',
      '$pageview - returning,1.0,1.0,0.0,0.0,0.0,0.0,0.0,0.0',
      '$pageview - resurrecting,1.0,0.0,0.0,1.0,0.0,1.0,0.0,1.0',
      '$pageview - dormant,0.0,-2.0,-1.0,0.0,-2.0,0.0,-1.0,0.0',
    ]);
  });

  test('scopes: insight:read for the insight, person:read for its persons', async () => {
    const params = { events: PAGEVIEWS, ...RANGE };
    assert.equal((await lifecycle('main', params, keys.insightRead)).status, 200);
    const refused = await lifecycle('main', params, keys.projectRead);
    assert.equal(refused.status, 403);
    assert.deepEqual(refused.body, ERRORS.missingScope('insight:read'));
    assert.deepEqual((await lifecycle('main', params, keys.personRead)).body, ERRORS.missingScope('insight:read'));
    const point = (await lifecycleOk('main', params))[0]!.persons_urls[0].url;
    assert.deepEqual((await server.get(`/${point}`, { key: keys.insightRead })).body, ERRORS.missingScope('person:read'));
    assert.equal((await server.get(`/${point}`, { key: keys.personRead })).status, 200);
  });

  test('bad input is a 400 naming the field', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...RANGE }, 'events'],
      [{ events: [...PAGEVIEWS, { id: 'other', order: 1 }], ...RANGE }, 'events'],
      [{ events: PAGEVIEWS, date_from: 'yesterday-ish' }, 'date_from'],
      [{ events: PAGEVIEWS, ...RANGE, interval: 'fortnight' }, 'interval'],
      [{ events: '[{', ...RANGE }, 'events'],
      [{ events: PAGEVIEWS, properties: '{broken', ...RANGE }, 'properties'],
      [{ events: PAGEVIEWS, properties: [{ key: 'id', type: 'cohort', value: 999999 }], ...RANGE }, 'properties'],
    ];
    for (const [params, attr] of cases) {
      const response = await lifecycle('main', params);
      assert.equal(response.status, 400, `${JSON.stringify(params)}: ${response.text}`);
      assert.equal(response.body.type, 'validation_error');
      assert.equal(response.body.attr, attr, JSON.stringify(params));
    }
    const actorCases: Array<[Record<string, unknown>, string]> = [
      [{ events: PAGEVIEWS, ...RANGE, lifecycle_type: 'new' }, 'target_date'],
      [{ events: PAGEVIEWS, ...RANGE, target_date: '2020-01-13' }, 'lifecycle_type'],
      [{ events: PAGEVIEWS, ...RANGE, target_date: '2020-01-13', lifecycle_type: 'zombie' }, 'lifecycle_type'],
      [{ events: PAGEVIEWS, ...RANGE, target_date: 'soon', lifecycle_type: 'new' }, 'target_date'],
    ];
    for (const [params, attr] of actorCases) {
      const response = await actors('main', params);
      assert.equal(response.status, 400, `${JSON.stringify(params)}: ${response.text}`);
      assert.equal(response.body.attr, attr, JSON.stringify(params));
    }
    const missing = await actors('main', { events: PAGEVIEWS, ...RANGE, lifecycle_type: 'new' });
    assert.deepEqual(missing.body, validationError('Must include specified date', 'target_date', 'required'));
  });

  test("project isolation: another project's action counts nothing, its cohort is a 400", async () => {
    const foreign = await server.bodyOf('POST', `/api/projects/${projects.anyEvent!.id}/actions/`, 201, {
      body: { name: 'Elsewhere', steps: [{ event: '$pageview' }] },
    });
    const response = await lifecycle('main', { actions: [{ id: foreign.id, type: 'actions', order: 0 }], ...RANGE });
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.body.result, []);
    const people = await actors('main', {
      actions: [{ id: foreign.id, type: 'actions', order: 0 }],
      ...RANGE,
      lifecycle_type: 'new',
      target_date: '2020-01-12',
    });
    assert.deepEqual(peopleIds(people), []);
    const cohort = await server.bodyOf('POST', `/api/projects/${projects.anyEvent!.id}/cohorts/`, 201, {
      body: { name: 'Elsewhere', filters: { properties: { type: 'AND', values: [{ key: 'name', value: 'p1', type: 'person', operator: 'exact' }] } } },
    });
    const inCohort = await lifecycle('main', { events: PAGEVIEWS, ...RANGE, properties: [{ key: 'id', type: 'cohort', value: cohort.id }] });
    assert.equal(inCohort.status, 400, inCohort.text);
    assert.equal(inCohort.body.attr, 'properties');
  });

  test('a saved insight of legacy lifecycle filters computes the numbers of the endpoint', async () => {
    const id = projects.main!.id;
    const filters = { insight: 'LIFECYCLE', shown_as: 'Lifecycle', events: PAGEVIEWS, ...RANGE };
    const created = await server.bodyOf('POST', `/api/projects/${id}/insights/`, 201, { body: { name: 'Lifecycle', filters } });
    const computed = await server.bodyOf('GET', `/api/projects/${id}/insights/${created.id}/?refresh=true`);
    const endpoint = await lifecycleOk('main', filters);
    const numbers = (items: Array<Record<string, any>>) => items.map(({ persons_urls: _urls, ...item }) => item);
    assert.deepEqual(numbers(computed.result), numbers(endpoint));
    assert.deepEqual(byStatus(computed.result), MAIN_EXPECTED);
  });
});
