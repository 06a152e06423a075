import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { actorQuery, peopleIds, sortedPeopleIds } from '../support/actors.js';
import { sendBatch } from '../support/capture.js';
import { PERSONS, startWithKeys } from '../support/persons.js';
import { ERRORS, type TallyServer } from '../support/tally.js';

/**
 * `GET /persons/stickiness` and `GET /persons/lifecycle` (project 1, UTC).
 *
 * Stickiness, `watched` over 2020-01-01 … 01-07:
 *   s1 on 01-01 (twice), 01-02, 01-03 → 3 days     s2 on 01-01, 01-04 → 2 days
 *   s3 three times on 01-05 → 1 day                 s4 on 01-06 → 1 day
 *   s5 on 2019-12-20 (outside) and 01-02 → 1 day
 *
 * Persons are listed newest first (created_at desc, then id desc); a person is created by its
 * first event.
 *
 * Lifecycle, `play` by day:
 *   l1 plays 02-01, 02-02, 02-04                     → new 02-01, returning 02-02, dormant 02-03, resurrecting 02-04
 *   l2 signs up 02-01, plays 02-02                   → resurrecting 02-02, dormant 02-03
 *   l3 plays 02-03                                   → new 02-03, dormant 02-04
 */
const STICKINESS = `${PERSONS}/stickiness/`;
const LIFECYCLE = `${PERSONS}/lifecycle/`;

function event(name: string, distinctId: string, timestamp: string) {
  return { event: name, distinct_id: distinctId, timestamp };
}

describe('persons analysis: stickiness and lifecycle actors', () => {
  let server: TallyServer;
  let keys: Record<string, string>;

  before(async () => {
    ({ server, keys } = await startWithKeys({ insightOnly: 'insight:read' }));
    await sendBatch(server, [
      event('watched', 's1', '2020-01-01T09:00:00Z'),
      event('watched', 's1', '2020-01-01T19:00:00Z'),
      event('watched', 's1', '2020-01-02T09:00:00Z'),
      event('watched', 's1', '2020-01-03T09:00:00Z'),
      event('watched', 's2', '2020-01-01T10:00:00Z'),
      event('watched', 's2', '2020-01-04T10:00:00Z'),
      event('watched', 's3', '2020-01-05T10:00:00Z'),
      event('watched', 's3', '2020-01-05T11:00:00Z'),
      event('watched', 's3', '2020-01-05T12:00:00Z'),
      event('watched', 's4', '2020-01-06T23:59:00Z'),
      event('watched', 's5', '2019-12-20T10:00:00Z'),
      event('watched', 's5', '2020-01-02T10:00:00Z'),
      event('play', 'l1', '2020-02-01T10:00:00Z'),
      event('signup', 'l2', '2020-02-01T11:00:00Z'),
      event('play', 'l1', '2020-02-02T10:00:00Z'),
      event('play', 'l2', '2020-02-02T11:00:00Z'),
      event('play', 'l3', '2020-02-03T10:00:00Z'),
      event('play', 'l1', '2020-02-04T10:00:00Z'),
    ]);
  });
  after(() => server.dispose());

  const WATCHED = { events: [{ id: 'watched', order: 0 }], entity_id: 'watched', entity_type: 'events', date_from: '2020-01-01', date_to: '2020-01-07' };
  const stickiness = (params: Record<string, unknown>, key?: string) => server.get(`${STICKINESS}?${actorQuery(params)}`, { key });

  test('stickiness: the persons active in exactly N intervals of the range', async () => {
    const expected: Record<number, string[]> = { 1: ['s4', 's3', 's5'], 2: ['s2'], 3: ['s1'], 4: [] };
    for (const [days, people] of Object.entries(expected)) {
      const response = await stickiness({ ...WATCHED, stickiness_days: days });
      assert.deepEqual(peopleIds(response), people, `stickiness_days=${days}`);
      assert.deepEqual(Object.keys(response.body).sort(), ['initial', 'is_cached', 'last_refresh', 'missing_persons', 'next', 'results']);
    }
    // Weeks: 2019-12-29 … 01-04 and 01-05 … 01-11, so s2 is in one week only, s4 in the second.
    assert.deepEqual(sortedPeopleIds(await stickiness({ ...WATCHED, interval: 'week', stickiness_days: 2 })), []);
    assert.deepEqual(peopleIds(await stickiness({ ...WATCHED, interval: 'week', stickiness_days: 1 })), ['s4', 's3', 's2', 's1', 's5']);
    // Older clients send entityId and type.
    const legacy = await stickiness({
      events: WATCHED.events,
      entityId: 'watched',
      type: 'events',
      date_from: '2020-01-01',
      date_to: '2020-01-07',
      stickiness_days: 3,
    });
    assert.deepEqual(peopleIds(legacy), ['s1']);
  });

  test('stickiness: paging by limit and offset', async () => {
    const first = await stickiness({ ...WATCHED, stickiness_days: 1, limit: 2 });
    assert.deepEqual(peopleIds(first), ['s4', 's3']);
    const next = new URL(first.body.next);
    assert.equal(next.searchParams.get('offset'), '2');
    const second = await server.get(next.pathname + next.search);
    assert.deepEqual(peopleIds(second), ['s5']);
    assert.equal(second.body.next, null);
  });

  test('stickiness: bad input is a 400 naming the field', async () => {
    for (const [params, attr] of [
      [{ ...WATCHED, stickiness_days: undefined }, 'stickiness_days'],
      [{ ...WATCHED, stickiness_days: 'x' }, 'stickiness_days'],
      [{ ...WATCHED, stickiness_days: 0 }, 'stickiness_days'],
      [{ ...WATCHED, stickiness_days: 1, date_to: 'yesterday-ish' }, 'date_to'],
      [{ ...WATCHED, stickiness_days: 1, entity_type: 'actions', entity_id: undefined }, 'entity_id'],
    ] as Array<[Record<string, unknown>, string]>) {
      const response = await stickiness(params);
      assert.equal(response.status, 400, JSON.stringify(params));
      assert.equal(response.body.attr, attr);
    }
  });

  const PLAY = { events: [{ id: 'play', order: 0 }], interval: 'day', date_from: '2020-02-01', date_to: '2020-02-05', shown_as: 'Lifecycle' };
  const lifecycle = (params: Record<string, unknown>, key?: string) => server.get(`${LIFECYCLE}?${actorQuery(params)}`, { key });

  test('lifecycle: new, returning, resurrecting and dormant persons of each day', async () => {
    const expected: Array<[string, string, string[]]> = [
      ['2020-02-01', 'new', ['l1']],
      ['2020-02-01', 'returning', []],
      ['2020-02-02', 'returning', ['l1']],
      ['2020-02-02', 'resurrecting', ['l2']],
      ['2020-02-02', 'new', []],
      ['2020-02-03', 'new', ['l3']],
      ['2020-02-03', 'dormant', ['l2', 'l1']],
      ['2020-02-04', 'resurrecting', ['l1']],
      ['2020-02-04', 'dormant', ['l3']],
      ['2020-02-05', 'dormant', ['l1']],
    ];
    for (const [day, status, people] of expected) {
      const response = await lifecycle({ ...PLAY, target_date: day, lifecycle_type: status });
      assert.deepEqual(peopleIds(response), people, `${day} ${status}`);
    }
    // Any time inside the period names it.
    assert.deepEqual(sortedPeopleIds(await lifecycle({ ...PLAY, target_date: '2020-02-03T15:00:00Z', lifecycle_type: 'new' })), ['l3']);
  });

  test('lifecycle: by week (Sunday starts; 02-01 is a Saturday, 02-02 a Sunday), creation decides "new"', async () => {
    const weekly = { ...PLAY, interval: 'week' };
    assert.deepEqual(sortedPeopleIds(await lifecycle({ ...weekly, target_date: '2020-01-26', lifecycle_type: 'new' })), ['l1']);
    assert.deepEqual(sortedPeopleIds(await lifecycle({ ...weekly, target_date: '2020-01-26', lifecycle_type: 'resurrecting' })), []);
    assert.deepEqual(sortedPeopleIds(await lifecycle({ ...weekly, target_date: '2020-02-02', lifecycle_type: 'returning' })), ['l1']);
    // l2 was created the week before, without playing: not new, so resurrecting.
    assert.deepEqual(sortedPeopleIds(await lifecycle({ ...weekly, target_date: '2020-02-05', lifecycle_type: 'resurrecting' })), ['l2']);
    assert.deepEqual(sortedPeopleIds(await lifecycle({ ...weekly, target_date: '2020-02-02', lifecycle_type: 'new' })), ['l3']);
  });

  test('lifecycle: missing or bad parameters are a 400 naming the field', async () => {
    for (const [params, attr] of [
      [{ ...PLAY, lifecycle_type: 'new' }, 'target_date'],
      [{ ...PLAY, target_date: '2020-02-02' }, 'lifecycle_type'],
      [{ ...PLAY, target_date: '2020-02-02', lifecycle_type: 'zombie' }, 'lifecycle_type'],
      [{ ...PLAY, target_date: 'soon', lifecycle_type: 'new' }, 'target_date'],
      [{ ...PLAY, events: [], target_date: '2020-02-02', lifecycle_type: 'new' }, 'events'],
      [{ ...PLAY, target_date: '2020-02-02', lifecycle_type: 'new', interval: 'year' }, 'interval'],
    ] as Array<[Record<string, unknown>, string]>) {
      const response = await lifecycle(params);
      assert.equal(response.status, 400, JSON.stringify(params));
      assert.equal(response.body.attr, attr, JSON.stringify(params));
    }
  });

  test('lifecycle: paging, CSV, and the person:read scope', async () => {
    const first = await lifecycle({ ...PLAY, target_date: '2020-02-03', lifecycle_type: 'dormant', limit: 1 });
    assert.deepEqual(peopleIds(first), ['l2']);
    const next = new URL(first.body.next);
    const second = await server.get(next.pathname + next.search);
    assert.deepEqual(peopleIds(second), ['l1']);
    const csv = await lifecycle({ ...PLAY, target_date: '2020-02-03', lifecycle_type: 'new', format: 'csv' });
    assert.equal(csv.status, 200);
    assert.match(csv.text, /l3/);
    const refused = await lifecycle({ ...PLAY, target_date: '2020-02-03', lifecycle_type: 'new' }, keys.insightOnly);
    assert.deepEqual(refused.body, ERRORS.missingScope('person:read'));
    const refusedStickiness = await stickiness({ ...WATCHED, stickiness_days: 1 }, keys.insightOnly);
    assert.equal(refusedStickiness.status, 403);
  });
});
