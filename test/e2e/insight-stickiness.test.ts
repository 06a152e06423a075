import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DateTime, type DurationLikeObject } from 'luxon';
import { actorQuery, peopleIds } from '../support/actors.js';
import { ERRORS, TallyServer, type ApiResponse } from '../support/tally.js';

/**
 * Stickiness through the trend endpoint (`insight=STICKINESS` / `shown_as=Stickiness`),
 * restating PostHog's legacy stickiness tests (posthog/queries/test/test_stickiness.py) with their
 * numbers, on events captured through /batch. PostHog's `_create_multiple_people(period)`, from
 * 2020-01-01 12:00 UTC (each scenario in a project of its own):
 *   person1  watched movie at +0                       (Chrome)  → 1 interval
 *   person2  at +0, and twice at +1 period             (Chrome)  → 2 intervals
 *   person3  at +0 and +2 as person3a, +1 as person3b  (Chrome)  → 3 intervals
 *   person4  at +4 periods                             (Safari)  → 1 interval
 */
const BASE = DateTime.fromISO('2020-01-01T12:00:00Z', { zone: 'UTC' });

type Event = { event: string; distinct_id: string; timestamp: string; properties?: Record<string, unknown> };

function multiplePeople(period: DurationLikeObject): Event[] {
  const at = (times: number) => {
    const scaled = Object.fromEntries(Object.entries(period).map(([unit, amount]) => [unit, Number(amount) * times]));
    return BASE.plus(scaled).toISO()!;
  };
  const watched = (distinctId: string, times: number, browser: string, set?: Record<string, unknown>): Event => ({
    event: 'watched movie',
    distinct_id: distinctId,
    timestamp: at(times),
    properties: { $browser: browser, ...(set ? { $set: set } : {}) },
  });
  return [
    watched('person1', 0, 'Chrome', { name: 'person1' }),
    watched('person2', 0, 'Chrome', { name: 'person2' }),
    watched('person2', 1, 'Chrome'),
    watched('person2', 1, 'Chrome'),
    watched('person3a', 0, 'Chrome', { name: 'person3' }),
    { event: '$identify', distinct_id: 'person3a', timestamp: at(0), properties: { $anon_distinct_id: 'person3b' } },
    watched('person3b', 1, 'Chrome'),
    watched('person3a', 2, 'Chrome'),
    watched('person4', 4, 'Safari', { name: 'person4' }),
  ];
}

const WATCHED = [{ id: 'watched movie' }];
const WEEK = { date_from: '2020-01-01', date_to: '2020-01-08' };
const DAYS = ['1 day', '2 days', '3 days', '4 days', '5 days', '6 days', '7 days', '8 days'];

describe('stickiness insight (/insights/trend/ with insight=STICKINESS)', () => {
  let server: TallyServer;
  const projects: Record<string, { id: number; api_token: string }> = {};
  const keys: Record<string, string> = {};
  let action: { id: number };

  const send = async (project: string, batch: Event[]) => {
    const response = await server.request('POST', '/batch/', { key: null, body: { api_key: projects[project]!.api_token, batch } });
    assert.equal(response.status, 200, response.text);
  };
  const stickiness = (project: string, params: Record<string, unknown>, key?: string): Promise<ApiResponse> =>
    server.get(`/api/projects/${projects[project]!.id}/insights/trend/?${actorQuery({ shown_as: 'Stickiness', ...params })}`, { key });
  const stickinessOk = async (project: string, params: Record<string, unknown>) => {
    const response = await stickiness(project, params);
    assert.equal(response.status, 200, response.text);
    return response.body.result as Array<Record<string, any>>;
  };
  const actors = (project: string, params: Record<string, unknown>) =>
    server.get(`/api/projects/${projects[project]!.id}/persons/stickiness/?${actorQuery({ shown_as: 'Stickiness', ...params })}`);

  /** Every data point's persons URL answers as many persons as the point counts. */
  async function assertActorsCountEveryPoint(result: Array<Record<string, any>>) {
    for (const item of result) {
      for (const [index, point] of (item.persons_urls as Array<{ url: string }>).entries()) {
        const response = await server.get(`/${point.url}`);
        assert.equal(peopleIds(response).length, item.data[index], `${item.label} ${item.labels[index]}: ${point.url}`);
      }
    }
  }

  before(async () => {
    server = new TallyServer(undefined, {});
    for (const [name, timezone] of [
      ['days', undefined],
      ['hours', undefined],
      ['weeks', undefined],
      ['months', undefined],
      ['testAccounts', undefined],
      ['paginated', undefined],
      ['pacific', 'US/Pacific'],
    ] as Array<[string, string | undefined]>) {
      projects[name] = server.createProject(`Stickiness ${name}`, timezone);
    }
    server.personalApiKey = server.createKey('*');
    keys.insightRead = server.createKey('insight:read');
    keys.personRead = server.createKey('person:read');
    await server.start();
    await send('days', multiplePeople({ days: 1 }));
    await send('hours', multiplePeople({ hours: 1 }));
    await send('weeks', multiplePeople({ weeks: 1 }));
    await send('months', multiplePeople({ months: 1 }));
    await send('testAccounts', [
      ...multiplePeople({ days: 1 }),
      { event: 'watched movie', distinct_id: 'ph', timestamp: BASE.toISO()!, properties: { $browser: 'Chrome', $set: { email: 'test@posthog.com' } } },
    ]);
    await send(
      'paginated',
      Array.from({ length: 150 }, (_, index) => ({ event: 'watched movie', distinct_id: `person${index}`, timestamp: '2020-01-01T12:00:00Z' })),
    );
    // 15:00 and 17:00 on 01-01 in Los Angeles, but two days in UTC.
    await send('pacific', [
      { event: 'watched movie', distinct_id: 'late', timestamp: '2020-01-01T23:00:00Z' },
      { event: 'watched movie', distinct_id: 'late', timestamp: '2020-01-02T01:00:00Z' },
    ]);
    action = await server.bodyOf('POST', `/api/projects/${projects.days!.id}/actions/`, 201, {
      body: { name: 'watch movie action', steps: [{ event: 'watched movie' }] },
    });
  });
  after(() => server.dispose());

  test('test_stickiness: persons per number of days, in the legacy shape', async () => {
    const result = await stickinessOk('days', { events: WATCHED, ...WEEK });
    assert.equal(result.length, 1);
    const [item] = result;
    assert.deepEqual(Object.keys(item!), ['action', 'label', 'count', 'data', 'labels', 'days', 'filter', 'persons_urls']);
    assert.equal(item!.count, 4);
    assert.deepEqual(item!.data, [2, 1, 1, 0, 0, 0, 0, 0]);
    assert.deepEqual(item!.labels, DAYS);
    assert.deepEqual(item!.days, [1, 2, 3, 4, 5, 6, 7, 8]);
    assert.equal(item!.label, 'watched movie');
    assert.equal(item!.action.id, 'watched movie');
    assert.equal(item!.action.type, 'events');
    assert.equal(item!.filter.insight, 'STICKINESS');
    assert.equal(item!.filter.date_from, '2020-01-01');
    assert.equal(item!.filter.date_to, '2020-01-08');
    assert.deepEqual(item!.persons_urls[0].filter, {
      stickiness_days: 1,
      entity_id: 'watched movie',
      entity_type: 'events',
      entity_math: null,
      entity_order: null,
    });
    assert.match(item!.persons_urls[0].url, new RegExp(`^api/projects/${projects.days!.id}/persons/stickiness/\\?.*stickiness_days=1`));
    await assertActorsCountEveryPoint(result);
  });

  test('test_stickiness_all_time: date_from=all starts at the first event', async () => {
    const result = await stickinessOk('days', { events: WATCHED, date_from: 'all', date_to: '2020-01-08' });
    assert.equal(result[0]!.count, 4);
    assert.deepEqual(result[0]!.data, [2, 1, 1, 0, 0, 0, 0, 0]);
    assert.deepEqual(result[0]!.labels, DAYS);
    await assertActorsCountEveryPoint(result);
  });

  test('test_stickiness_hours', async () => {
    const result = await stickinessOk('hours', {
      events: WATCHED,
      date_from: '2020-01-01T12:00:00.00Z',
      date_to: '2020-01-01T20:00:00.00Z',
      interval: 'hour',
    });
    assert.equal(result[0]!.count, 4);
    assert.deepEqual(result[0]!.data, [2, 1, 1, 0, 0, 0, 0, 0, 0]);
    assert.deepEqual(result[0]!.labels.slice(0, 3), ['1 hour', '2 hours', '3 hours']);
    assert.equal(result[0]!.labels[6], '7 hours');
    await assertActorsCountEveryPoint(result);
  });

  test('test_stickiness_weeks', async () => {
    const result = await stickinessOk('weeks', { events: WATCHED, date_from: '2020-01-01', date_to: '2020-02-15', interval: 'week' });
    assert.equal(result[0]!.count, 4);
    assert.deepEqual(result[0]!.data, [2, 1, 1, 0, 0, 0, 0]);
    assert.deepEqual(result[0]!.labels, ['1 week', '2 weeks', '3 weeks', '4 weeks', '5 weeks', '6 weeks', '7 weeks']);
    await assertActorsCountEveryPoint(result);
  });

  test('test_stickiness_months (and a range across a new year counts its months)', async () => {
    const result = await stickinessOk('months', { events: WATCHED, date_from: '2020-01-01', date_to: '2020-09-08', interval: 'month' });
    assert.equal(result[0]!.count, 4);
    assert.deepEqual(result[0]!.data, [2, 1, 1, 0, 0, 0, 0, 0, 0]);
    assert.equal(result[0]!.labels[0], '1 month');
    assert.equal(result[0]!.labels[6], '7 months');
    await assertActorsCountEveryPoint(result);
    const acrossYears = await stickinessOk('months', { events: WATCHED, date_from: '2019-11-01', date_to: '2020-02-10', interval: 'month' });
    assert.deepEqual(acrossYears[0]!.labels, ['1 month', '2 months', '3 months', '4 months']);
    assert.deepEqual(acrossYears[0]!.data, [1, 2, 0, 0]);
  });

  test('test_stickiness_prop_filter and test_stickiness_entity_filter: Chrome only', async () => {
    const chrome = [{ key: '$browser', value: 'Chrome' }];
    for (const params of [
      { events: WATCHED, properties: chrome, ...WEEK },
      { events: [{ id: 'watched movie', properties: chrome }], ...WEEK },
    ]) {
      const result = await stickinessOk('days', params);
      assert.equal(result[0]!.count, 3);
      assert.deepEqual(result[0]!.data, [1, 1, 1, 0, 0, 0, 0, 0]);
      await assertActorsCountEveryPoint(result);
    }
  });

  test('test_stickiness_any_event: a series of all events', async () => {
    const result = await stickinessOk('days', { events: [{ id: null }], ...WEEK });
    assert.equal(result[0]!.count, 4);
    assert.deepEqual(result[0]!.data, [2, 1, 1, 0, 0, 0, 0, 0]);
    assert.equal(result[0]!.label, 'All events');
    await assertActorsCountEveryPoint(result);
  });

  test('test_stickiness_entity_person_filter: a person property on the series', async () => {
    const result = await stickinessOk('days', {
      events: [{ id: 'watched movie', properties: [{ key: 'name', value: ['person1'], operator: 'exact', type: 'person' }] }],
      ...WEEK,
    });
    assert.equal(result[0]!.count, 1);
    assert.deepEqual(result[0]!.data, [1, 0, 0, 0, 0, 0, 0, 0]);
    await assertActorsCountEveryPoint(result);
  });

  test('test_stickiness_action: named as the action; several series are counted each on its own', async () => {
    const result = await stickinessOk('days', {
      actions: [{ id: action.id, order: 1 }],
      events: [{ id: 'watched movie', order: 0, properties: [{ key: '$browser', value: 'Safari' }] }],
      ...WEEK,
    });
    assert.deepEqual(
      result.map((item) => [item.label, item.count, item.data]),
      [
        ['watched movie', 1, [1, 0, 0, 0, 0, 0, 0, 0]],
        ['watch movie action', 4, [2, 1, 1, 0, 0, 0, 0, 0]],
      ],
    );
    await assertActorsCountEveryPoint(result);
  });

  test('test_stickiness_people_endpoint: the persons of one data point, newest first', async () => {
    const response = await actors('days', {
      stickiness_days: 1,
      ...WEEK,
      entity_id: action.id,
      entity_type: 'actions',
      actions: [{ id: action.id, type: 'actions' }],
    });
    assert.deepEqual(peopleIds(response), ['person4', 'person1']);
    assert.deepEqual(Object.keys(response.body).sort(), ['initial', 'is_cached', 'last_refresh', 'missing_persons', 'next', 'results']);
    // Older clients name the entity entityId and type.
    const legacy = await actors('days', { stickiness_days: 3, ...WEEK, entityId: action.id, type: 'actions' });
    assert.deepEqual(peopleIds(legacy), ['person3a']);
  });

  test('test_stickiness_people_with_entity_filter: an id alone names one of the event series', async () => {
    const response = await actors('days', {
      stickiness_days: 1,
      ...WEEK,
      events: [{ id: 'watched movie', type: 'events', properties: [{ key: '$browser', value: 'Chrome' }] }],
      entity_id: 'watched movie',
    });
    assert.deepEqual(peopleIds(response), ['person1']);
  });

  test('test_stickiness_people_paginated: 100 persons, then 50', async () => {
    const first = await actors('paginated', { stickiness_days: 1, ...WEEK, entity_type: 'events', entity_id: 'watched movie' });
    assert.equal(peopleIds(first).length, 100);
    const ids = first.body.results[0].people.map((person: { id: number }) => person.id);
    assert.deepEqual(
      ids,
      [...ids].sort((a: number, b: number) => b - a),
    );
    const next = new URL(first.body.next);
    const second = await server.get(next.pathname + next.search);
    assert.equal(peopleIds(second).length, 50);
    assert.equal(second.body.next, null);
    assert.equal(new Set([...peopleIds(first), ...peopleIds(second)]).size, 150);
  });

  test('test_compare: the current and the previous period, on an axis of days', async () => {
    const result = await stickinessOk('days', {
      ...WEEK,
      compare: 'true',
      display: 'ActionsLineGraph',
      events: [{ id: 'watched movie', math: 'dau', name: 'watched movie', type: 'events', order: null, properties: [], math_property: null }],
      insight: 'TRENDS',
      interval: 'day',
      properties: [],
    });
    assert.deepEqual(result[0]!.data, [2, 1, 1, 0, 0, 0, 0, 0]);
    assert.deepEqual(result[1]!.data, [0, 0, 0, 0, 0, 0, 0, 0]);
    assert.equal(result[0]!.compare_label, 'current');
    assert.equal(result[1]!.compare_label, 'previous');
    assert.equal(result[0]!.compare, true);
    assert.deepEqual(result[0]!.labels, ['day 0', 'day 1', 'day 2', 'day 3', 'day 4', 'day 5', 'day 6', 'day 7']);
    assert.equal(result[1]!.filter.date_to.slice(0, 10), '2019-12-31');
    await assertActorsCountEveryPoint(result);
  });

  test('test_filter_test_accounts: the test account is left out', async () => {
    const patched = await server.patch(`/api/projects/${projects.testAccounts!.id}/`, {
      test_account_filters: [{ key: 'email', value: '@posthog.com', operator: 'not_icontains', type: 'person' }],
    });
    assert.equal(patched.status, 200, patched.text);
    const all = await stickinessOk('testAccounts', { events: WATCHED, ...WEEK });
    assert.deepEqual(all[0]!.data, [3, 1, 1, 0, 0, 0, 0, 0]);
    const result = await stickinessOk('testAccounts', { events: WATCHED, ...WEEK, filter_test_accounts: 'true' });
    assert.equal(result[0]!.count, 4);
    assert.deepEqual(result[0]!.data, [2, 1, 1, 0, 0, 0, 0, 0]);
    await assertActorsCountEveryPoint(result);
  });

  test('intervals are counted in the project timezone', async () => {
    const result = await stickinessOk('pacific', { events: WATCHED, date_from: '2020-01-01', date_to: '2020-01-03' });
    assert.deepEqual(result[0]!.data, [1, 0, 0]);
    await assertActorsCountEveryPoint(result);
  });

  test('GET and POST, insight or shown_as, CSV, with and without slash, and under /api/environments/', async () => {
    const id = projects.days!.id;
    const params = { events: WATCHED, ...WEEK };
    const byInsight = await server.get(`/api/projects/${id}/insights/trend/?${actorQuery({ insight: 'STICKINESS', ...params })}`);
    assert.equal(byInsight.status, 200, byInsight.text);
    assert.deepEqual(byInsight.body.result[0].data, [2, 1, 1, 0, 0, 0, 0, 0]);
    assert.deepEqual(Object.keys(byInsight.body).sort(), ['is_cached', 'last_refresh', 'next', 'result', 'timezone']);
    const posted = await server.post(`/api/projects/${id}/insights/trend/`, { insight: 'STICKINESS', ...params });
    assert.deepEqual(posted.body.result[0].data, [2, 1, 1, 0, 0, 0, 0, 0]);
    const noSlash = await server.get(`/api/projects/${id}/insights/trend?${actorQuery({ shown_as: 'Stickiness', ...params })}`);
    assert.deepEqual(noSlash.body.result[0].data, [2, 1, 1, 0, 0, 0, 0, 0]);
    const environment = await server.get(`/api/environments/${id}/insights/trend/?${actorQuery({ shown_as: 'Stickiness', ...params })}`);
    assert.deepEqual(environment.body.result[0].data, [2, 1, 1, 0, 0, 0, 0, 0]);
    const point = await server.get(`/${environment.body.result[0].persons_urls[1].url.replace(`api/projects/${id}/`, `api/environments/${id}/`)}`);
    assert.deepEqual(peopleIds(point), ['person2']);
    const csv = await stickiness('days', { ...params, format: 'csv' });
    assert.equal(csv.status, 200);
    assert.match(csv.headers.get('content-type') ?? '', /text\/csv/);
    assert.deepEqual(csv.text.trim().split(/\r?\n/), [`series,${DAYS.join(',')}`, 'watched movie,2.0,1.0,1.0,0.0,0.0,0.0,0.0,0.0']);
  });

  test('scopes: insight:read for the insight, person:read for its persons', async () => {
    const params = { events: WATCHED, ...WEEK };
    assert.equal((await stickiness('days', params, keys.insightRead)).status, 200);
    assert.deepEqual((await stickiness('days', params, keys.personRead)).body, ERRORS.missingScope('insight:read'));
    const point = (await stickinessOk('days', params))[0]!.persons_urls[0].url;
    assert.deepEqual((await server.get(`/${point}`, { key: keys.insightRead })).body, ERRORS.missingScope('person:read'));
    assert.equal((await server.get(`/${point}`, { key: keys.personRead })).status, 200);
  });

  test('bad input is a 400 naming the field', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ events: WATCHED, date_from: 'yesterday-ish' }, 'date_from'],
      [{ events: WATCHED, ...WEEK, interval: 'fortnight' }, 'interval'],
      [{ events: '[{', ...WEEK }, 'events'],
      [{ events: WATCHED, properties: '{broken', ...WEEK }, 'properties'],
      [{ events: WATCHED, properties: [{ key: 'id', type: 'cohort', value: 999999 }], ...WEEK }, 'properties'],
      [{ events: WATCHED, date_from: 'all', compare: 'true' }, 'date_from'],
    ];
    for (const [params, attr] of cases) {
      const response = await stickiness('days', params);
      assert.equal(response.status, 400, `${JSON.stringify(params)}: ${response.text}`);
      assert.equal(response.body.type, 'validation_error');
      assert.equal(response.body.attr, attr, JSON.stringify(params));
    }
    const actorCases: Array<[Record<string, unknown>, string]> = [
      [{ events: WATCHED, ...WEEK, entity_id: 'watched movie', entity_type: 'events' }, 'stickiness_days'],
      [{ events: WATCHED, ...WEEK, entity_id: 'watched movie', entity_type: 'events', stickiness_days: 'x' }, 'stickiness_days'],
      [{ events: WATCHED, ...WEEK, entity_id: 'watched movie', entity_type: 'events', stickiness_days: 0 }, 'stickiness_days'],
      [{ events: WATCHED, ...WEEK, stickiness_days: 1 }, 'entity_id'],
      [{ events: WATCHED, ...WEEK, stickiness_days: 1, entity_type: 'actions' }, 'entity_id'],
      [{ events: WATCHED, ...WEEK, stickiness_days: 1, entity_id: 'elsewhere' }, 'entity_type'],
      [{ events: WATCHED, ...WEEK, stickiness_days: 1, entity_order: 'first' }, 'entity_order'],
    ];
    for (const [params, attr] of actorCases) {
      const response = await actors('days', params);
      assert.equal(response.status, 400, `${JSON.stringify(params)}: ${response.text}`);
      assert.equal(response.body.attr, attr, JSON.stringify(params));
    }
  });

  test("project isolation: another project's action counts nothing, its cohort is a 400", async () => {
    const foreign = await server.bodyOf('POST', `/api/projects/${projects.hours!.id}/actions/`, 201, {
      body: { name: 'Elsewhere', steps: [{ event: 'watched movie' }] },
    });
    const response = await stickiness('days', { actions: [{ id: foreign.id }], ...WEEK });
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.body.result, []);
    const people = await actors('days', { actions: [{ id: foreign.id }], ...WEEK, stickiness_days: 1, entity_id: foreign.id, entity_type: 'actions' });
    assert.deepEqual(peopleIds(people), []);
    const cohort = await server.bodyOf('POST', `/api/projects/${projects.hours!.id}/cohorts/`, 201, {
      body: { name: 'Elsewhere', filters: { properties: { type: 'AND', values: [{ key: 'name', value: 'person1', type: 'person', operator: 'exact' }] } } },
    });
    const inCohort = await stickiness('days', { events: WATCHED, ...WEEK, properties: [{ key: 'id', type: 'cohort', value: cohort.id }] });
    assert.equal(inCohort.status, 400, inCohort.text);
    assert.equal(inCohort.body.attr, 'properties');
  });

  test('a saved insight of legacy stickiness filters computes the numbers of the endpoint', async () => {
    const id = projects.days!.id;
    const filters = { insight: 'TRENDS', shown_as: 'Stickiness', events: WATCHED, ...WEEK };
    const created = await server.bodyOf('POST', `/api/projects/${id}/insights/`, 201, { body: { name: 'Stickiness', filters } });
    const computed = await server.bodyOf('GET', `/api/projects/${id}/insights/${created.id}/?refresh=true`);
    assert.deepEqual(computed.result, await stickinessOk('days', filters));
    assert.deepEqual(computed.result[0].data, [2, 1, 1, 0, 0, 0, 0, 0]);
  });
});
