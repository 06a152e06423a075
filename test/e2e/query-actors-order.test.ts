import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { capture, type CapturedEvent } from '../support/definitions.js';
import { PERSONS } from '../support/persons.js';
import { QUERY_TOKEN, runQuery, startQueryServer } from '../support/query-server.js';
import type { TallyServer } from '../support/tally.js';

/**
 * ActorsQuery `orderBy` over the source's actors, sorted by the warehouse (project 1, UTC). Six
 * persons watch on 2020-01-01, one an hour from 08:00 (a person is created by its first event),
 * and again on later days of the week:
 *
 *          events 01-01   days watched   name     age        plan
 *     a    3              3 (01-01…03)   Cleo     30         pro
 *     b    1              1              ada      5
 *     c    2              2 (01-01, 02)  Bea      100        free
 *     d    1              2 (01-01, 04)  —        "unknown"
 *     e    2              1              Dan      5.5
 *     f    1              4 (01-01…04)   ""       —
 *
 * a, c and e buy on 01-05. g (name Aaron) pings with a on 02-01 and is deleted afterwards.
 */

function ev(event: string, distinctId: string, timestamp: string, properties: Record<string, unknown> = {}): CapturedEvent {
  return { event, distinct_id: distinctId, timestamp: `${timestamp}Z`, properties };
}

const JANUARY = { date_from: '2020-01-01', date_to: '2020-01-07' };
const WATCHED = [{ kind: 'EventsNode', event: 'watched' }];
const TRENDS_DAY = { kind: 'InsightActorsQuery', source: { kind: 'TrendsQuery', series: WATCHED, dateRange: JANUARY }, day: '2020-01-01' };
const STICKINESS = { kind: 'StickinessQuery', series: WATCHED, dateRange: JANUARY };

describe('query API: ActorsQuery orderBy', () => {
  let server: TallyServer;

  async function answer(query: Record<string, unknown>): Promise<any> {
    const response = await runQuery(server, { kind: 'ActorsQuery', ...query });
    assert.equal(response.status, 200, response.text);
    return response.body;
  }

  /** The first distinct id of each actor of the page, in the answer's order. */
  async function ids(query: Record<string, unknown>): Promise<string[]> {
    const body = await answer({ ...query, select: ['person'] });
    return body.results.map((row: [{ distinct_ids: string[] }]) => row[0].distinct_ids[0]);
  }

  /** Every page of `limit` actors from the first, as ids, with each page's hasMore. */
  async function pages(query: Record<string, unknown>, limit: number): Promise<Array<[string[], boolean]>> {
    const found: Array<[string[], boolean]> = [];
    for (let offset = 0; ; offset += limit) {
      const body = await answer({ ...query, select: ['person'], limit, offset });
      assert.equal(body.offset, offset);
      found.push([body.results.map((row: [{ distinct_ids: string[] }]) => row[0].distinct_ids[0]), body.hasMore]);
      if (!body.hasMore) return found;
    }
  }

  async function refused(query: Record<string, unknown>, attr: string): Promise<void> {
    const response = await runQuery(server, { kind: 'ActorsQuery', ...query });
    assert.equal(response.status, 400, response.text);
    assert.equal(response.body.type, 'validation_error');
    assert.equal(response.body.attr, attr, response.text);
  }

  before(async () => {
    ({ server } = await startQueryServer(['query:read']));
    /** `count` events on 01-01 from `hour` on, ten minutes apart, the first setting the properties; one at `hour` on each later day. */
    const watched = (id: string, hour: number, count: number, set: Record<string, unknown>, laterDays: number[]) => {
      const at = (day: number, minute: number) => `2020-01-0${day}T${String(hour).padStart(2, '0')}:${String(minute).padStart(2, '0')}:00`;
      return [
        ...Array.from({ length: count }, (_, index) => ev('watched', id, at(1, index * 10), index === 0 ? { $set: set } : {})),
        ...laterDays.map((day) => ev('watched', id, at(day, 0))),
      ];
    };
    await capture(server, QUERY_TOKEN, [
      ...watched('a', 8, 3, { name: 'Cleo', age: 30, plan: 'pro' }, [2, 3]),
      ...watched('b', 9, 1, { name: 'ada', age: 5 }, []),
      ...watched('c', 10, 2, { name: 'Bea', age: 100, plan: 'free' }, [2]),
      ...watched('d', 11, 1, { age: 'unknown' }, [4]),
      ...watched('e', 12, 2, { name: 'Dan', age: 5.5 }, []),
      ...watched('f', 13, 1, { name: '' }, [2, 3, 4]),
      ...['a', 'c', 'e'].map((id) => ev('bought', id, '2020-01-05T10:00:00')),
      ev('pinged', 'g', '2020-01-31T10:00:00', { $set: { name: 'Aaron' } }),
      ev('pinged', 'g', '2020-02-01T10:00:00'),
      ev('pinged', 'a', '2020-02-01T11:00:00'),
    ]);
    const g = await server.get(`${PERSONS}/?distinct_id=g`);
    assert.equal((await server.delete(`${PERSONS}/${g.body.results[0].id}/`)).status, 204);
  });
  after(() => server.dispose());

  test('a person property, ascending and descending, paged: missing, null and empty values last either way', async () => {
    assert.deepEqual(await ids({ source: TRENDS_DAY }), ['a', 'e', 'c', 'f', 'd', 'b']);
    // Text by its characters (capitals first); d has no name and f an empty one: they tie, in the source's order.
    assert.deepEqual(await pages({ source: TRENDS_DAY, orderBy: ['person.properties.name ASC'] }, 2), [
      [['c', 'a'], true],
      [['e', 'b'], true],
      [['f', 'd'], false],
    ]);
    assert.deepEqual(await pages({ source: TRENDS_DAY, orderBy: ['person.properties.name DESC'] }, 4), [
      [['b', 'e', 'a', 'c'], true],
      [['f', 'd'], false],
    ]);
    assert.deepEqual(await ids({ source: TRENDS_DAY, orderBy: ['properties.name'], offset: 6 }), []);
    // Numbers by value before text, the reverse descending; f has no age.
    assert.deepEqual(await ids({ source: TRENDS_DAY, orderBy: ['person.properties.age'] }), ['b', 'e', 'a', 'c', 'd', 'f']);
    assert.deepEqual(await ids({ source: TRENDS_DAY, orderBy: ['person.properties.age desc'] }), ['d', 'c', 'a', 'e', 'b', 'f']);
    const page = await answer({ source: TRENDS_DAY, select: ['id', 'event_count'], orderBy: ['person.properties.age DESC'], limit: 3, offset: 1 });
    assert.deepEqual(
      page.results.map((row: unknown[]) => row[1]),
      [2, 3, 2],
    );
    assert.equal(page.hasMore, true);
    assert.equal(page.missing_actors_count, 0);
    assert.match(page.hogql, /ORDER BY person\.properties\.age DESC LIMIT 4 OFFSET 1$/);
  });

  test('event_count: ties keep the source order (most events, then newest person); then another key', async () => {
    const ascending = await answer({ source: TRENDS_DAY, select: ['person', 'event_count'], orderBy: ['event_count ASC'] });
    assert.deepEqual(
      ascending.results.map((row: [{ distinct_ids: string[] }, number]) => [row[0].distinct_ids[0], row[1]]),
      [
        ['f', 1],
        ['d', 1],
        ['b', 1],
        ['e', 2],
        ['c', 2],
        ['a', 3],
      ],
    );
    assert.deepEqual(await pages({ source: TRENDS_DAY, orderBy: ['event_count DESC'] }, 5), [
      [['a', 'e', 'c', 'f', 'd'], true],
      [['b'], false],
    ]);
    assert.deepEqual(await ids({ source: TRENDS_DAY, orderBy: ['person.properties.plan DESC', 'event_count ASC'] }), ['a', 'c', 'f', 'd', 'b', 'e']);
    assert.deepEqual(await ids({ source: TRENDS_DAY, orderBy: ['event_count', 'person.properties.name DESC'] }), ['b', 'f', 'd', 'e', 'c', 'a']);
  });

  test('person columns: created_at and id', async () => {
    assert.deepEqual(await ids({ source: TRENDS_DAY, orderBy: ['created_at ASC'] }), ['a', 'b', 'c', 'd', 'e', 'f']);
    assert.deepEqual(await ids({ source: TRENDS_DAY, orderBy: ['created_at DESC'] }), ['f', 'e', 'd', 'c', 'b', 'a']);
    const byId = await answer({ source: TRENDS_DAY, select: ['id'], orderBy: ['id DESC'] });
    const uuids = byId.results.map((row: [string]) => row[0]);
    assert.equal(uuids.length, 6);
    assert.deepEqual(uuids, [...uuids].sort().reverse());
    const byActorId = await answer({ source: TRENDS_DAY, select: ['id'], orderBy: ['actor_id'], limit: 2, offset: 2 });
    assert.deepEqual(
      byActorId.results.map((row: [string]) => row[0]),
      [...uuids].sort().slice(2, 4),
    );
  });

  test('other sources: lifecycle, stickiness, funnels and the persons list order by properties too', async () => {
    const lifecycle = { kind: 'LifecycleQuery', series: WATCHED, dateRange: { date_from: '2020-01-01', date_to: '2020-01-04' } };
    const newOnFirst = { kind: 'InsightActorsQuery', source: lifecycle, day: '2020-01-01', status: 'new' };
    assert.deepEqual(await ids({ source: newOnFirst }), ['f', 'e', 'd', 'c', 'b', 'a']);
    assert.deepEqual(await ids({ source: newOnFirst, orderBy: ['person.properties.age DESC'] }), ['d', 'c', 'a', 'e', 'b', 'f']);
    assert.deepEqual(await ids({ source: newOnFirst, orderBy: ['created_at'], limit: 2, offset: 4 }), ['e', 'f']);
    const twoDays = { kind: 'StickinessActorsQuery', source: STICKINESS, day: 2, operator: 'gte' };
    assert.deepEqual(await ids({ source: twoDays, orderBy: ['person.properties.name'] }), ['c', 'a', 'f', 'd']);
    const funnel = {
      kind: 'FunnelsQuery',
      series: ['watched', 'bought'].map((event) => ({ kind: 'EventsNode', event })),
      dateRange: { date_from: '2020-01-01', date_to: '2020-01-31' },
    };
    const bought = { kind: 'FunnelsActorsQuery', source: funnel, funnelStep: 2 };
    assert.deepEqual(await ids({ source: bought, orderBy: ['person.properties.name DESC'] }), ['e', 'a', 'c']);
    assert.deepEqual(await pages({ orderBy: ['person.properties.name ASC'] }, 4), [
      [['c', 'a', 'e', 'b'], true],
      [['f', 'd'], false],
    ]);
    assert.deepEqual(await ids({ orderBy: ['person.properties.age ASC'], properties: [{ key: 'plan', operator: 'is_set', type: 'person' }] }), ['a', 'c']);
  });

  test('a person deleted since the events comes last in a requested order, counted as missing', async () => {
    const pinged = {
      kind: 'InsightActorsQuery',
      source: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'pinged' }], dateRange: { date_from: '2020-02-01', date_to: '2020-02-01' } },
      day: '2020-02-01',
    };
    for (const orderBy of [['person.properties.name'], ['created_at ASC'], ['id']]) {
      const first = await answer({ source: pinged, select: ['person'], orderBy, limit: 1 });
      assert.deepEqual(
        first.results.map((row: [{ distinct_ids: string[] }]) => row[0].distinct_ids[0]),
        ['a'],
        JSON.stringify(orderBy),
      );
      assert.equal(first.hasMore, true);
      assert.equal(first.missing_actors_count, 0);
      const second = await answer({ source: pinged, select: ['person'], orderBy, limit: 1, offset: 1 });
      assert.deepEqual(second.results, []);
      assert.equal(second.hasMore, false);
      assert.equal(second.missing_actors_count, 1);
    }
  });

  test('stickiness gte and lte: one page of the union of the interval counts, newest person first', async () => {
    const stickiness = await runQuery(server, STICKINESS);
    assert.equal(stickiness.status, 200, stickiness.text);
    assert.deepEqual(stickiness.body.results[0].data, [2, 2, 1, 1, 0, 0, 0]);
    const exact: Array<Array<{ distinct_ids: string[]; created_at: string }>> = [];
    for (let day = 1; day <= 7; day++) {
      const body = await answer({ source: { kind: 'StickinessActorsQuery', source: STICKINESS, day }, select: ['person'] });
      exact.push(body.results.map((row: [{ distinct_ids: string[]; created_at: string }]) => row[0]));
    }
    assert.deepEqual(
      exact.map((persons) => persons.map((person) => person.distinct_ids[0])),
      [['e', 'b'], ['d', 'c'], ['a'], ['f'], [], [], []],
    );
    const union = (days: number[]) =>
      days
        .flatMap((day) => exact[day - 1]!)
        .sort((x, y) => Date.parse(y.created_at) - Date.parse(x.created_at))
        .map((person) => person.distinct_ids[0]);
    const cases: Array<['gte' | 'lte', number, number[]]> = [
      ['gte', 1, [1, 2, 3, 4, 5, 6, 7]],
      ['gte', 2, [2, 3, 4, 5, 6, 7]],
      ['gte', 4, [4, 5, 6, 7]],
      ['gte', 5, [5, 6, 7]],
      ['lte', 1, [1]],
      ['lte', 2, [1, 2]],
      ['lte', 3, [1, 2, 3]],
      ['lte', 9, [1, 2, 3, 4, 5, 6, 7]],
    ];
    for (const [operator, day, days] of cases) {
      const source = { kind: 'StickinessActorsQuery', source: STICKINESS, day, operator };
      const expected = union(days);
      assert.deepEqual(await ids({ source }), expected, `${operator} ${day}`);
      if (expected.length > 2) {
        const paged = await pages({ source }, 2);
        assert.deepEqual(
          paged.flatMap(([found]) => found),
          expected,
          `${operator} ${day} paged`,
        );
        assert.deepEqual(
          paged.map(([, hasMore]) => hasMore),
          paged.map((_, index) => index < paged.length - 1),
        );
      }
    }
    assert.deepEqual(union([2, 3, 4, 5, 6, 7]), ['f', 'd', 'c', 'a']);
    assert.deepEqual(union([1, 2, 3]), ['e', 'd', 'c', 'b', 'a']);
  });

  test('an order the warehouse cannot sort by is a 400 naming the item', async () => {
    await refused({ source: TRENDS_DAY, orderBy: ['event_count', 'person_display_name'] }, 'query.orderBy.1');
    await refused({ source: TRENDS_DAY, orderBy: ['toString(id) DESC'] }, 'query.orderBy.0');
    await refused({ source: TRENDS_DAY, orderBy: ['person.properties.name SIDEWAYS'] }, 'query.orderBy.0');
    await refused({ source: TRENDS_DAY, orderBy: ['person.properties.'] }, 'query.orderBy.0');
    await refused({ source: TRENDS_DAY, orderBy: ['created_at', 7] }, 'query.orderBy.1');
    await refused({ source: { kind: 'StickinessActorsQuery', source: STICKINESS, day: 1 }, orderBy: ['event_count'] }, 'query.orderBy.0');
    await refused({ orderBy: ['appearances'] }, 'query.orderBy.0');
  });
});
