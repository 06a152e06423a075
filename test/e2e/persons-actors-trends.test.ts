import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { actorQuery, peopleIds, sortedPeopleIds } from '../support/actors.js';
import { sendBatch } from '../support/capture.js';
import { PERSONS, personOf, startWithKeys } from '../support/persons.js';
import { ERRORS, type ApiResponse, type TallyServer } from '../support/tally.js';

/**
 * `GET /persons/trends`: the persons behind one trend data point. Project 1 (UTC):
 *
 *   u1  $pageview 01-01 10:00 Chrome amount 5, 01-01 10:30 Chrome amount 7 (email ann@example.com)
 *   u2  $pageview 01-01 12:00 Safari amount 3, 01-02 12:00 Safari
 *   u3  $pageview 01-02 09:00 (no browser) amount 10; sign up 01-02 09:05
 *   u4  $pageview 01-03 08:00 Chrome amount 1, 08:10 amount 2, 08:20 amount 4 (three events in one hour)
 *   u5  $pageview 01-04 (the person is deleted afterwards: its one event is counted, the person is missing)
 *   anon6 $pageview 01-05 10:00, identified as u6 at 10:05, u6 $pageview 11:00 (one person)
 *
 * Persons are listed by value_at_data_point (their events, or their property math), then the
 * person created last first, then the highest id.
 */
const TRENDS = `${PERSONS}/trends/`;
const PAGEVIEWS = { events: [{ id: '$pageview', order: 0 }] };
const PAGEVIEW = { entity_id: '$pageview', entity_type: 'events' };

/** The value_at_data_point of every person of an answer, in answer order. */
function values(response: ApiResponse): Array<number | null> {
  return response.body.results[0].people.map((person: { value_at_data_point: number | null }) => person.value_at_data_point);
}

function sum(numbers: Array<number | null>): number {
  return numbers.reduce<number>((total, value) => total + (value ?? 0), 0);
}

describe('persons analysis: trends actors', () => {
  let server: TallyServer;
  let keys: Record<string, string>;

  before(async () => {
    ({ server, keys } = await startWithKeys({ insightOnly: 'insight:read', personRead: 'person:read' }));
    const pageview = (distinctId: string, timestamp: string, properties: Record<string, unknown> = {}) => ({
      event: '$pageview',
      distinct_id: distinctId,
      timestamp,
      properties,
    });
    await sendBatch(server, [
      pageview('u1', '2020-01-01T10:00:00Z', { $browser: 'Chrome', amount: 5, $set: { email: 'ann@example.com' } }),
      pageview('u1', '2020-01-01T10:30:00Z', { $browser: 'Chrome', amount: 7 }),
      pageview('u2', '2020-01-01T12:00:00Z', { $browser: 'Safari', amount: 3 }),
      pageview('u2', '2020-01-02T12:00:00Z', { $browser: 'Safari' }),
      pageview('u3', '2020-01-02T09:00:00Z', { amount: 10 }),
      { event: 'sign up', distinct_id: 'u3', timestamp: '2020-01-02T09:05:00Z' },
      pageview('u4', '2020-01-03T08:00:00Z', { $browser: 'Chrome', amount: 1 }),
      pageview('u4', '2020-01-03T08:10:00Z', { $browser: 'Chrome', amount: 2 }),
      pageview('u4', '2020-01-03T08:20:00Z', { $browser: 'Chrome', amount: 4 }),
      pageview('u5', '2020-01-04T08:00:00Z'),
      pageview('anon6', '2020-01-05T10:00:00Z'),
      { event: '$identify', distinct_id: 'u6', timestamp: '2020-01-05T10:05:00Z', properties: { $anon_distinct_id: 'anon6' } },
      pageview('u6', '2020-01-05T11:00:00Z'),
    ]);
    const deleted = await server.delete(`${PERSONS}/${(await personOf(server, 'u5')).id}/`);
    assert.equal(deleted.status, 204);
  });
  after(() => server.dispose());

  const get = (params: Record<string, unknown>, key?: string | null) => server.get(`${TRENDS}?${actorQuery(params)}`, { key });

  test('a day bucket: its persons, most events first, in the contract Person shape with value_at_data_point', async () => {
    const response = await get({ ...PAGEVIEWS, entity_id: '$pageview', entity_type: 'events', date_from: '2020-01-01', date_to: '2020-01-01' });
    assert.deepEqual(peopleIds(response), ['u1', 'u2']);
    assert.deepEqual(values(response), [2, 1]);
    const [ann] = response.body.results[0].people;
    assert.deepEqual(ann, { ...(await personOf(server, 'u1')), value_at_data_point: 2 });
    assert.equal(typeof ann.id, 'number');
    assert.equal(ann.name, 'ann@example.com');
    assert.match(ann.created_at, /^2020-01-01T10:00:00/);
    assert.equal(response.body.next, null);
    assert.equal(response.body.missing_persons, 0);
    assert.equal(response.body.is_cached, false);
    // The first page of the same request: its parameters with offset 0 and the limit.
    assert.ok(
      response.body.initial.endsWith(
        `${TRENDS}?${actorQuery({ ...PAGEVIEWS, entity_id: '$pageview', entity_type: 'events', date_from: '2020-01-01', date_to: '2020-01-01' })}&offset=0&limit=100`,
      ),
      response.body.initial,
    );
  });

  test('every persons_urls entry of a trend answers with the persons counted at that point', async () => {
    const trend = await server.get(`/api/projects/1/insights/trend/?${actorQuery({ ...PAGEVIEWS, date_from: '2020-01-01', date_to: '2020-01-03' })}`);
    assert.equal(trend.status, 200, trend.text);
    const [series] = trend.body.result;
    assert.deepEqual(series.data, [3, 2, 3]);
    assert.equal(series.persons_urls.length, 3);
    // Ties keep the person created last first: u3 (01-02) before u2 (01-01).
    const expected = [['u1', 'u2'], ['u3', 'u2'], ['u4']];
    const expectedValues = [[2, 1], [1, 1], [3]];
    for (const [index, point] of series.persons_urls.entries()) {
      const response = await server.get(`/${point.url}`);
      assert.deepEqual(peopleIds(response), expected[index], point.url);
      assert.deepEqual(values(response), expectedValues[index], point.url);
    }
  });

  /** The trend's every data point (or aggregate value) against what its persons URL answers. */
  async function assertPointsCount(params: Record<string, unknown>, measure: (response: ApiResponse) => number | null): Promise<number> {
    const trend = await server.get(`/api/projects/1/insights/trend/?${actorQuery(params)}`);
    assert.equal(trend.status, 200, trend.text);
    let points = 0;
    for (const item of trend.body.result) {
      if (item.persons) {
        assert.equal(measure(await server.get(`/${item.persons.url}`)), item.aggregated_value, `${item.label}: ${item.persons.url}`);
        points++;
        continue;
      }
      for (const [index, point] of item.persons_urls.entries()) {
        assert.equal(measure(await server.get(`/${point.url}`)), item.data[index], `${item.label} ${item.days[index]}: ${point.url}`);
        points++;
      }
    }
    return points;
  }

  /** Events: each person's value is its event count; the deleted u5 is missing with its one event. */
  const eventCount = (response: ApiResponse) => sum(values(response)) + response.body.missing_persons;
  /** Unique persons, the deleted one included. */
  const personCount = (response: ApiResponse) => peopleIds(response).length + response.body.missing_persons;

  test('the persons of every data point count it exactly: total, dau, weekly active, by day, hour and week', async () => {
    const range = { date_from: '2020-01-01', date_to: '2020-01-05' };
    assert.equal(await assertPointsCount({ ...PAGEVIEWS, ...range }, eventCount), 5);
    assert.equal(await assertPointsCount({ events: [{ id: '$pageview', order: 0, math: 'dau' }], ...range }, personCount), 5);
    assert.equal(await assertPointsCount({ events: [{ id: '$pageview', order: 0, math: 'weekly_active' }], ...range }, personCount), 5);
    assert.equal(await assertPointsCount({ events: [{ id: '$pageview', order: 0, math: 'monthly_active' }], ...range }, personCount), 5);
    assert.equal(await assertPointsCount({ ...PAGEVIEWS, date_from: '2019-12-29', date_to: '2020-01-11', interval: 'week' }, eventCount), 2);
    // The range ends inside its last week (and month): that point's persons stop where the range does.
    assert.equal(await assertPointsCount({ ...PAGEVIEWS, date_from: '2019-12-29', date_to: '2020-01-03', interval: 'week' }, eventCount), 1);
    assert.equal(await assertPointsCount({ ...PAGEVIEWS, date_from: '2020-01-01', date_to: '2020-01-03', interval: 'month' }, eventCount), 1);
    assert.equal(
      await assertPointsCount({ ...PAGEVIEWS, date_from: '2020-01-01T09:00:00Z', date_to: '2020-01-01T12:00:00Z', interval: 'hour' }, eventCount),
      4,
    );
    assert.equal(await assertPointsCount({ ...PAGEVIEWS, ...range, display: 'ActionsLineGraphCumulative' }, eventCount), 5);
    assert.equal(await assertPointsCount({ ...PAGEVIEWS, ...range, display: 'ActionsTable' }, eventCount), 1);
    assert.equal(await assertPointsCount({ events: [{ id: '$pageview', order: 0, math: 'dau' }], ...range, display: 'BoldNumber' }, personCount), 1);
    assert.equal(
      await assertPointsCount({ events: [{ id: '$pageview', order: 0, math: 'weekly_active' }], ...range, display: 'ActionsTable' }, personCount),
      1,
    );
  });

  test('property maths: each person has its own sum or maximum, and they make the data point', async () => {
    const range = { date_from: '2020-01-01', date_to: '2020-01-03' };
    const summed = { events: [{ id: '$pageview', order: 0, math: 'sum', math_property: 'amount' }], ...range };
    assert.equal(await assertPointsCount(summed, (response) => sum(values(response))), 3);
    const sums = await get({ ...summed, entity_id: '$pageview', entity_type: 'events', entity_math: 'sum', date_to: '2020-01-01' });
    // Ordered by each one's sum: u1 12, u2 3.
    assert.deepEqual(peopleIds(sums), ['u1', 'u2']);
    assert.deepEqual(values(sums), [12, 3]);
    const maximum = { events: [{ id: '$pageview', order: 0, math: 'max', math_property: 'amount' }], ...range };
    assert.equal(await assertPointsCount(maximum, (response) => Math.max(...values(response).map((value) => value ?? -Infinity))), 3);
    // u2 has no amount on 01-02: it is counted in the data point with no value, after u3.
    const day2 = await get({ ...maximum, entity_id: '$pageview', entity_type: 'events', entity_math: 'max', date_from: '2020-01-02', date_to: '2020-01-02' });
    assert.deepEqual(peopleIds(day2), ['u3', 'u2']);
    assert.deepEqual(values(day2), [10, null]);
  });

  test('breakdowns: the persons of every breakdown value and day count it exactly', async () => {
    const range = { date_from: '2020-01-01', date_to: '2020-01-03' };
    assert.equal(await assertPointsCount({ ...PAGEVIEWS, ...range, breakdown: '$browser' }, eventCount), 9);
    assert.equal(await assertPointsCount({ events: [{ id: '$pageview', order: 0, math: 'dau' }], ...range, breakdown: '$browser' }, personCount), 9);
    assert.equal(await assertPointsCount({ ...PAGEVIEWS, ...range, breakdown: 'email', breakdown_type: 'person' }, eventCount), 6);
    assert.equal(await assertPointsCount({ ...PAGEVIEWS, ...range, breakdown: '$browser', display: 'ActionsTable' }, eventCount), 3);
  });

  test('hour and week buckets', async () => {
    const hourly = { ...PAGEVIEWS, entity_id: '$pageview', entity_type: 'events', interval: 'hour' };
    assert.deepEqual(peopleIds(await get({ ...hourly, date_from: '2020-01-01T10:00:00Z', date_to: '2020-01-01T11:00:00Z' })), ['u1']);
    assert.deepEqual(peopleIds(await get({ ...hourly, date_from: '2020-01-01T11:00:00Z', date_to: '2020-01-01T12:00:00Z' })), []);
    assert.deepEqual(peopleIds(await get({ ...hourly, date_from: '2020-01-01T12:00:00Z', date_to: '2020-01-01T12:00:00Z' })), ['u2']);
    const weekly = { ...PAGEVIEWS, entity_id: '$pageview', entity_type: 'events', interval: 'week', date_from: '2019-12-29', date_to: '2020-01-04' };
    // u1 and u2 have two events each: u2, created after u1, comes first.
    const week = await get(weekly);
    assert.deepEqual(peopleIds(week), ['u4', 'u2', 'u1', 'u3']);
    assert.deepEqual(values(week), [3, 2, 2, 1]);
  });

  test('weekly active users: the persons active in the 7 days up to the data point', async () => {
    const weekly = {
      events: [{ id: '$pageview', order: 0, math: 'weekly_active' }],
      entity_id: '$pageview',
      entity_type: 'events',
      entity_math: 'weekly_active',
    };
    assert.deepEqual(sortedPeopleIds(await get({ ...weekly, date_from: '2020-01-03', date_to: '2020-01-03' })), ['u1', 'u2', 'u3', 'u4']);
    assert.deepEqual(sortedPeopleIds(await get({ ...weekly, date_from: '2020-01-01', date_to: '2020-01-01' })), ['u1', 'u2']);
  });

  test('breakdown values pick one bucket; the empty value is the none bucket', async () => {
    const base = { ...PAGEVIEWS, breakdown: '$browser', breakdown_type: 'event', entity_id: '$pageview', entity_type: 'events' };
    assert.deepEqual(peopleIds(await get({ ...base, date_from: '2020-01-01', date_to: '2020-01-01', breakdown_value: 'Chrome' })), ['u1']);
    assert.deepEqual(peopleIds(await get({ ...base, date_from: '2020-01-02', date_to: '2020-01-02', breakdown_value: '' })), ['u3']);
    const trend = await server.get(
      `/api/projects/1/insights/trend/?${actorQuery({ ...PAGEVIEWS, breakdown: '$browser', date_from: '2020-01-01', date_to: '2020-01-03' })}`,
    );
    const safari = trend.body.result.find((item: { breakdown_value: string }) => item.breakdown_value === 'Safari');
    assert.deepEqual(peopleIds(await server.get(`/${safari.persons_urls[1].url}`)), ['u2']);
  });

  test('the "Other" bucket holds the values outside the breakdown limit', async () => {
    const other = {
      ...PAGEVIEWS,
      breakdown: '$browser',
      breakdown_limit: 1,
      entity_id: '$pageview',
      entity_type: 'events',
      date_from: '2020-01-01',
      date_to: '2020-01-01',
    };
    assert.deepEqual(peopleIds(await get({ ...other, breakdown_value: '$$_posthog_breakdown_other_$$' })), ['u2']);
    assert.deepEqual(peopleIds(await get({ ...other, breakdown_value: 'Chrome' })), ['u1']);
  });

  test('events of merged distinct ids count for one person; deleted persons are counted as missing', async () => {
    const day5 = await get({ ...PAGEVIEWS, entity_id: '$pageview', entity_type: 'events', date_from: '2020-01-05', date_to: '2020-01-05' });
    assert.equal(peopleIds(day5).length, 1);
    assert.deepEqual([...day5.body.results[0].people[0].distinct_ids].sort(), ['anon6', 'u6']);
    const day4 = await get({ ...PAGEVIEWS, entity_id: '$pageview', entity_type: 'events', date_from: '2020-01-04', date_to: '2020-01-04' });
    assert.deepEqual(peopleIds(day4), []);
    assert.equal(day4.body.missing_persons, 1);
  });

  test('entity by order or by id among several series; property filters and search narrow the persons', async () => {
    const two = {
      events: [
        { id: '$pageview', order: 0 },
        { id: 'sign up', order: 1 },
      ],
      date_from: '2020-01-02',
      date_to: '2020-01-02',
    };
    assert.deepEqual(peopleIds(await get({ ...two, entity_id: 'sign up', entity_type: 'events', entity_order: 1 })), ['u3']);
    assert.deepEqual(peopleIds(await get({ ...two, entity_id: 'sign up', type: 'events' })), ['u3']);
    const day1 = { ...PAGEVIEWS, entity_id: '$pageview', entity_type: 'events', date_from: '2020-01-01', date_to: '2020-01-01' };
    assert.deepEqual(peopleIds(await get({ ...day1, properties: [{ key: '$browser', value: 'Safari', type: 'event' }] })), ['u2']);
    assert.deepEqual(peopleIds(await get({ ...day1, search: 'ANN@' })), ['u1']);
  });

  test('limit and offset page the persons; next carries the following offset', async () => {
    const params = { ...PAGEVIEWS, entity_id: '$pageview', entity_type: 'events', date_from: '2020-01-01', date_to: '2020-01-03', display: 'ActionsTable' };
    const first = await get({ ...params, limit: 2 });
    const next = new URL(first.body.next);
    assert.equal(next.searchParams.get('offset'), '2');
    const second = await server.get(next.pathname + next.search);
    // u4 has 3 events, u2 and u1 2 each (u2 was created after u1), u3 1.
    assert.deepEqual(peopleIds(first), ['u4', 'u2']);
    assert.deepEqual(peopleIds(second), ['u1', 'u3']);
    assert.deepEqual([...values(first), ...values(second)], [3, 2, 2, 1]);
    assert.equal(second.body.next, null, 'no next page when the last page is exactly full');
  });

  test('format=csv lists the people', async () => {
    const response = await server.get(
      `${TRENDS}?${actorQuery({ ...PAGEVIEWS, entity_id: '$pageview', entity_type: 'events', date_from: '2020-01-03', date_to: '2020-01-03', format: 'csv' })}`,
    );
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /text\/csv/);
    const [header, row] = response.text.trim().split('\r\n');
    assert.ok(header!.split(',').includes('distinct_ids.0'));
    assert.ok(row!.includes('u4'));
  });

  test('bad input is a 400 naming the field; the path without a slash works', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ date_from: '2020-01-03' }, 'entity_id'],
      [{ ...PAGEVIEWS, date_from: '2020-01-03' }, 'entity_id'],
      [{ entity_type: 'actions' }, 'entity_id'],
      [{ entity_type: 'groups', entity_id: 'x' }, 'entity_type'],
      [{ ...PAGEVIEWS, entity_id: 'sign up' }, 'entity_type'],
      [{ ...PAGEVIEWS, entity_order: 'first' }, 'entity_order'],
      [{ ...PAGEVIEWS, entity_order: 3 }, 'entity_order'],
      [{ ...PAGEVIEW, date_from: 'not a date' }, 'date_from'],
      [{ ...PAGEVIEW, interval: 'fortnight' }, 'interval'],
      [{ ...PAGEVIEW, properties: '{broken' }, 'properties'],
      [{ ...PAGEVIEW, events: '[{' }, 'events'],
      [{ ...PAGEVIEW, limit: 'ten' }, 'limit'],
      [{ ...PAGEVIEW, breakdown: 'x', breakdown_type: 'cohort', breakdown_value: 'abc' }, 'breakdown'],
    ];
    for (const [params, attr] of cases) {
      const response = await get(params);
      assert.equal(response.status, 400, `${JSON.stringify(params)}: ${response.text}`);
      assert.equal(response.body.attr, attr, JSON.stringify(params));
      assert.equal(response.body.type, 'validation_error');
    }
    const missing = await get({ date_from: '2020-01-03' });
    assert.deepEqual(missing.body, {
      type: 'validation_error',
      code: 'required',
      detail: 'An entity id and the entity type must be provided to determine an entity',
      attr: 'entity_id',
    });
    const unknownCohort = await get({ ...PAGEVIEW, breakdown: [999], breakdown_type: 'cohort', breakdown_value: '999' });
    assert.equal(unknownCohort.status, 400, unknownCohort.text);
    const noSlash = await server.get(`${PERSONS}/trends?${actorQuery({ ...PAGEVIEW, date_from: '2020-01-03', date_to: '2020-01-03' })}`);
    assert.deepEqual(peopleIds(noSlash), ['u4']);
    // An id alone names one of the event series; the order alone, a series by its order.
    assert.deepEqual(peopleIds(await get({ ...PAGEVIEWS, entity_id: '$pageview', date_from: '2020-01-03', date_to: '2020-01-03' })), ['u4']);
    assert.deepEqual(peopleIds(await get({ ...PAGEVIEWS, entity_order: 0, date_from: '2020-01-03', date_to: '2020-01-03' })), ['u4']);
    const environments = await server.get(`/api/environments/1/persons/trends/?${actorQuery({ ...PAGEVIEW, date_from: '2020-01-03', date_to: '2020-01-03' })}`);
    assert.deepEqual(peopleIds(environments), ['u4']);
  });

  test('scope: person:read is needed; insight:read alone is refused', async () => {
    const params = { ...PAGEVIEW, date_from: '2020-01-03', date_to: '2020-01-03' };
    const refused = await get(params, keys.insightOnly);
    assert.equal(refused.status, 403);
    assert.deepEqual(refused.body, ERRORS.missingScope('person:read'));
    assert.deepEqual(peopleIds(await get(params, keys.personRead)), ['u4']);
    assert.equal((await get(params, null)).status, 401);
  });
});
