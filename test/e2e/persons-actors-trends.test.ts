import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { actorQuery, peopleIds, sortedPeopleIds } from '../support/actors.js';
import { sendBatch } from '../support/capture.js';
import { PERSONS, personOf, startWithKeys } from '../support/persons.js';
import { ERRORS, type TallyServer } from '../support/tally.js';

/**
 * `GET /persons/trends`: the persons behind one trend data point. Project 1 (UTC):
 *
 *   u1  $pageview 01-01 10:00 Chrome, 01-01 10:30 Chrome (email ann@example.com)
 *   u2  $pageview 01-01 12:00 Safari, 01-02 12:00 Safari
 *   u3  $pageview 01-02 09:00 (no browser); sign up 01-02 09:05
 *   u4  $pageview 01-03 08:00 Chrome, 08:10, 08:20 (three events in one hour)
 *   u5  $pageview 01-04 (the person is deleted afterwards)
 *   anon6 $pageview 01-05 10:00, identified as u6 at 10:05, u6 $pageview 11:00 (one person)
 */
const TRENDS = `${PERSONS}/trends/`;
const PAGEVIEWS = { events: [{ id: '$pageview', order: 0 }] };

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
      pageview('u1', '2020-01-01T10:00:00Z', { $browser: 'Chrome', $set: { email: 'ann@example.com' } }),
      pageview('u1', '2020-01-01T10:30:00Z', { $browser: 'Chrome' }),
      pageview('u2', '2020-01-01T12:00:00Z', { $browser: 'Safari' }),
      pageview('u2', '2020-01-02T12:00:00Z', { $browser: 'Safari' }),
      pageview('u3', '2020-01-02T09:00:00Z'),
      { event: 'sign up', distinct_id: 'u3', timestamp: '2020-01-02T09:05:00Z' },
      pageview('u4', '2020-01-03T08:00:00Z', { $browser: 'Chrome' }),
      pageview('u4', '2020-01-03T08:10:00Z', { $browser: 'Chrome' }),
      pageview('u4', '2020-01-03T08:20:00Z', { $browser: 'Chrome' }),
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

  test('a day bucket: its persons, most events first, in the contract Person shape', async () => {
    const response = await get({ ...PAGEVIEWS, entity_id: '$pageview', entity_type: 'events', date_from: '2020-01-01', date_to: '2020-01-01' });
    assert.deepEqual(peopleIds(response), ['u1', 'u2']);
    const [ann] = response.body.results[0].people;
    assert.deepEqual(ann, await personOf(server, 'u1'));
    assert.equal(typeof ann.id, 'number');
    assert.equal(ann.name, 'ann@example.com');
    assert.match(ann.created_at, /^2020-01-01T10:00:00/);
    assert.equal(response.body.next, null);
    assert.equal(response.body.missing_persons, 0);
    assert.equal(response.body.is_cached, false);
    assert.ok(response.body.initial.endsWith(`${TRENDS}?${actorQuery({ ...PAGEVIEWS, entity_id: '$pageview', entity_type: 'events', date_from: '2020-01-01', date_to: '2020-01-01' })}`));
  });

  test('every persons_urls entry of a trend answers with the persons counted at that point', async () => {
    const trend = await server.get(`/api/projects/1/insights/trend/?${actorQuery({ ...PAGEVIEWS, date_from: '2020-01-01', date_to: '2020-01-03' })}`);
    assert.equal(trend.status, 200, trend.text);
    const [series] = trend.body.result;
    assert.deepEqual(series.data, [3, 2, 3]);
    assert.equal(series.persons_urls.length, 3);
    const expected = [['u1', 'u2'], ['u2', 'u3'], ['u4']];
    for (const [index, point] of series.persons_urls.entries()) {
      assert.deepEqual(sortedPeopleIds(await server.get(`/${point.url}`)), expected[index], point.url);
    }
  });

  test('hour and week buckets', async () => {
    const hourly = { ...PAGEVIEWS, entity_id: '$pageview', entity_type: 'events', interval: 'hour' };
    assert.deepEqual(peopleIds(await get({ ...hourly, date_from: '2020-01-01T10:00:00Z', date_to: '2020-01-01T11:00:00Z' })), ['u1']);
    assert.deepEqual(peopleIds(await get({ ...hourly, date_from: '2020-01-01T11:00:00Z', date_to: '2020-01-01T12:00:00Z' })), []);
    assert.deepEqual(peopleIds(await get({ ...hourly, date_from: '2020-01-01T12:00:00Z', date_to: '2020-01-01T12:00:00Z' })), ['u2']);
    const weekly = { ...PAGEVIEWS, entity_id: '$pageview', entity_type: 'events', interval: 'week', date_from: '2019-12-29', date_to: '2020-01-04' };
    const week = peopleIds(await get(weekly));
    assert.equal(week[0], 'u4');
    assert.equal(week[3], 'u3');
    assert.deepEqual([...week].sort(), ['u1', 'u2', 'u3', 'u4']);
  });

  test('weekly active users: the persons active in the 7 days up to the data point', async () => {
    const weekly = { events: [{ id: '$pageview', order: 0, math: 'weekly_active' }], entity_id: '$pageview', entity_type: 'events', entity_math: 'weekly_active' };
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
    const other = { ...PAGEVIEWS, breakdown: '$browser', breakdown_limit: 1, entity_id: '$pageview', entity_type: 'events', date_from: '2020-01-01', date_to: '2020-01-01' };
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
    const two = { events: [{ id: '$pageview', order: 0 }, { id: 'sign up', order: 1 }], date_from: '2020-01-02', date_to: '2020-01-02' };
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
    // u4 has 3 events, u1 and u2 2 each, u3 1.
    const seen = [...peopleIds(first), ...peopleIds(second)];
    assert.equal(seen[0], 'u4');
    assert.equal(seen[3], 'u3');
    assert.deepEqual([...seen].sort(), ['u1', 'u2', 'u3', 'u4']);
    const following = new URL(second.body.next);
    const last = await server.get(following.pathname + following.search);
    assert.deepEqual(peopleIds(last), []);
    assert.equal(last.body.next, null);
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
      [{ entity_type: 'actions' }, 'entity_id'],
      [{ entity_type: 'groups', entity_id: 'x' }, 'entity_type'],
      [{ entity_id: '$pageview', date_from: 'not a date' }, 'date_from'],
      [{ entity_id: '$pageview', interval: 'fortnight' }, 'interval'],
      [{ entity_id: '$pageview', properties: '{broken' }, 'properties'],
      [{ entity_id: '$pageview', events: '[{' }, 'events'],
      [{ entity_id: '$pageview', limit: 'ten' }, 'limit'],
      [{ entity_id: '$pageview', breakdown: 'x', breakdown_type: 'cohort', breakdown_value: 'abc' }, 'breakdown'],
    ];
    for (const [params, attr] of cases) {
      const response = await get(params);
      assert.equal(response.status, 400, `${JSON.stringify(params)}: ${response.text}`);
      assert.equal(response.body.attr, attr, JSON.stringify(params));
      assert.equal(response.body.type, 'validation_error');
    }
    const unknownCohort = await get({ entity_id: '$pageview', breakdown: [999], breakdown_type: 'cohort', breakdown_value: '999' });
    assert.equal(unknownCohort.status, 400, unknownCohort.text);
    const noSlash = await server.get(`${PERSONS}/trends?${actorQuery({ entity_id: '$pageview', date_from: '2020-01-03', date_to: '2020-01-03' })}`);
    assert.deepEqual(peopleIds(noSlash), ['u4']);
  });

  test('scope: person:read is needed; insight:read alone is refused', async () => {
    const params = { entity_id: '$pageview', date_from: '2020-01-03', date_to: '2020-01-03' };
    const refused = await get(params, keys.insightOnly);
    assert.equal(refused.status, 403);
    assert.deepEqual(refused.body, ERRORS.missingScope('person:read'));
    assert.deepEqual(peopleIds(await get(params, keys.personRead)), ['u4']);
    assert.equal((await get(params, null)).status, 401);
  });
});
