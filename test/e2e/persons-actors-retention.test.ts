import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { actorQuery } from '../support/actors.js';
import { sendBatch } from '../support/capture.js';
import { PERSONS, startWithKeys } from '../support/persons.js';
import { ERRORS, type ApiResponse, type TallyServer } from '../support/tally.js';

/**
 * `GET /persons/retention` (project 1, UTC). Day periods, date_to 2020-06-05 and 5 intervals:
 * cohorts Day 0 = 06-01 … Day 4 = 06-05. `$pageview` days:
 *   r1 06-01, 06-02, 06-04     r2 06-01, 06-05 (and `signup` on 06-01)     r4 06-01
 *   r3 05-20 (before the range), 06-02, 06-03                                r5 06-02, 06-03
 * Members are listed by number of appearances, most first, then by person id: r3 was created
 * first (its event is the batch's first), then r1, r2, r4, r5.
 */
const RETENTION = `${PERSONS}/retention/`;
const WINDOW = { date_to: '2020-06-05', total_intervals: 5, period: 'Day' };

type Row = { person: { distinct_ids: string[] }; appearances: number[] };

function rows(response: ApiResponse): Array<[string, number[]]> {
  assert.equal(response.status, 200, response.text);
  return (response.body.result as Row[]).map((row) => [row.person.distinct_ids[0]!, row.appearances]);
}

describe('persons analysis: retention actors', () => {
  let server: TallyServer;
  let keys: Record<string, string>;

  before(async () => {
    ({ server, keys } = await startWithKeys({ insightOnly: 'insight:read' }));
    const pageview = (distinctId: string, day: string) => ({ event: '$pageview', distinct_id: distinctId, timestamp: `2020-${day}T12:00:00Z` });
    await sendBatch(server, [
      pageview('r3', '05-20'),
      pageview('r1', '06-01'),
      pageview('r2', '06-01'),
      { event: 'signup', distinct_id: 'r2', timestamp: '2020-06-01T11:00:00Z' },
      pageview('r4', '06-01'),
      pageview('r1', '06-02'),
      pageview('r3', '06-02'),
      pageview('r5', '06-02'),
      pageview('r3', '06-03'),
      pageview('r5', '06-03'),
      pageview('r1', '06-04'),
      pageview('r2', '06-05'),
    ]);
  });
  after(() => server.dispose());

  const get = (params: Record<string, unknown>, key?: string) => server.get(`${RETENTION}?${actorQuery(params)}`, { key });

  test('recurring: the cohort of a period with the later periods each member came back in, most returns first', async () => {
    const day0 = await get({ ...WINDOW, selected_interval: 0 });
    assert.deepEqual(rows(day0), [
      ['r1', [1, 1, 0, 1, 0]],
      ['r2', [1, 0, 0, 0, 1]],
      ['r4', [1, 0, 0, 0, 0]],
    ]);
    assert.deepEqual(Object.keys(day0.body).sort(), ['missing_persons', 'next', 'result']);
    assert.equal(day0.body.missing_persons, 0);
    assert.equal(day0.body.next, null);
    // Equal appearances: the person created first comes first (r3's first event is the batch's first).
    assert.deepEqual(rows(await get({ ...WINDOW, selected_interval: 1 })), [
      ['r3', [1, 1, 0, 0]],
      ['r1', [1, 0, 1, 0]],
      ['r5', [1, 1, 0, 0]],
    ]);
    assert.deepEqual(rows(await get({ ...WINDOW, selected_interval: 4 })), [['r2', [1]]]);
    // The retention table's row links carry breakdown_values=[n].
    assert.deepEqual(rows(await get({ ...WINDOW, breakdown_values: [2] })), [
      ['r3', [1, 0, 0]],
      ['r5', [1, 0, 0]],
    ]);
  });

  test('first time: only persons whose first-ever target event falls in the cohort period', async () => {
    const firstTime = { ...WINDOW, retention_type: 'retention_first_time' };
    assert.deepEqual(rows(await get({ ...firstTime, selected_interval: 1 })), [['r5', [1, 1, 0, 0]]]);
    assert.deepEqual(rows(await get({ ...firstTime, selected_interval: 0 })), [
      ['r1', [1, 1, 0, 1, 0]],
      ['r2', [1, 0, 0, 0, 1]],
      ['r4', [1, 0, 0, 0, 0]],
    ]);
  });

  test('target and returning entities differ; defaults are $pageview and 11 days', async () => {
    const signups = await get({ ...WINDOW, target_entity: { id: 'signup', type: 'events' }, returning_entity: { id: '$pageview', type: 'events' } });
    assert.deepEqual(rows(signups), [['r2', [1, 0, 0, 0, 1]]]);
    // date_to 06-05 and 11 days: cohort 0 is 05-26, so 06-01 is cohort 6.
    assert.deepEqual(
      rows(await get({ date_to: '2020-06-05', selected_interval: 6 })).map(([id, appearances]) => [id, appearances.length]),
      [
        ['r1', 5],
        ['r2', 5],
        ['r4', 5],
      ],
    );
  });

  test('week periods start on Sunday: cohorts of the weeks of 05-17, 05-24 and 05-31', async () => {
    const weeks = await get({ date_to: '2020-06-05', period: 'Week', total_intervals: 3, selected_interval: 2 });
    assert.deepEqual(rows(weeks), [
      ['r3', [1]],
      ['r1', [1]],
      ['r2', [1]],
      ['r4', [1]],
      ['r5', [1]],
    ]);
    assert.deepEqual(rows(await get({ date_to: '2020-06-05', period: 'Week', total_intervals: 3, selected_interval: 0 })), [['r3', [1, 0, 1]]]);
    assert.deepEqual(rows(await get({ date_to: '2020-06-05', period: 'Week', total_intervals: 3, selected_interval: 1 })), []);
  });

  test('paging by limit and offset; CSV; scope', async () => {
    const first = await get({ ...WINDOW, selected_interval: 0, limit: 2 });
    assert.deepEqual(
      rows(first).map(([id]) => id),
      ['r1', 'r2'],
    );
    const next = new URL(first.body.next);
    assert.equal(next.searchParams.get('offset'), '2');
    assert.deepEqual(
      rows(await server.get(next.pathname + next.search)).map(([id]) => id),
      ['r4'],
    );
    const csv = await get({ ...WINDOW, selected_interval: 0, format: 'csv' });
    assert.equal(csv.status, 200);
    assert.ok(csv.text.split('\r\n')[0]!.includes('appearances.0'));
    assert.deepEqual((await get(WINDOW, keys.insightOnly)).body, ERRORS.missingScope('person:read'));
  });

  test('bad input is a 400 naming the field', async () => {
    for (const [params, attr] of [
      [{ ...WINDOW, period: 'Year' }, 'period'],
      [{ ...WINDOW, total_intervals: 'many' }, 'total_intervals'],
      [{ ...WINDOW, total_intervals: 0 }, 'total_intervals'],
      [{ ...WINDOW, selected_interval: 5 }, 'selected_interval'],
      [{ ...WINDOW, selected_interval: -1 }, 'selected_interval'],
      [{ ...WINDOW, date_to: 'tomorrow-ish' }, 'date_to'],
      [{ ...WINDOW, target_entity: '{"id":' }, 'target_entity'],
      [{ ...WINDOW, target_entity: { id: 1, type: 'groups' } }, 'target_entity'],
      [{ ...WINDOW, returning_entity: { id: 'x', type: 'actions' } }, 'returning_entity'],
      [{ ...WINDOW, properties: '[{' }, 'properties'],
    ] as Array<[Record<string, unknown>, string]>) {
      const response = await get(params);
      assert.equal(response.status, 400, `${JSON.stringify(params)} ${response.text}`);
      assert.equal(response.body.attr, attr, JSON.stringify(params));
    }
    const unknownAction = await get({ ...WINDOW, target_entity: { id: 999, type: 'actions' } });
    assert.equal(unknownAction.status, 400);
    assert.equal(unknownAction.body.attr, 'target_entity');
  });
});
