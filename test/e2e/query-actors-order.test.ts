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
});
