import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { actorQuery, peopleIds, sortedPeopleIds } from '../support/actors.js';
import { sendBatch } from '../support/capture.js';
import { PERSONS, startWithKeys } from '../support/persons.js';
import { ERRORS, type TallyServer } from '../support/tally.js';

/**
 * `GET|POST /persons/funnel` over the funnel `sign up` → `view` → `pay` (project 1, UTC; every
 * event at 10:00 of the day shown, May 2021):
 *
 *   f1  sign up 01 (Chrome), view 02, pay 03          ordered 3, strict 3, unordered 3
 *   f2  sign up 01 (Safari), view 02                  ordered 2, strict 2, unordered 2
 *   f3  sign up 01 (Chrome)                           ordered 1, strict 1, unordered 1
 *   f4  sign up 01, pay 02, view 03                   ordered 2, strict 1, unordered 3
 *   f5  sign up 01, view 20 (19 days later)           ordered 1 with the 14-day window, 2 with 20 days
 *   f6  view 02, pay 03 (never signs up)              ordered —, unordered 2
 *   f7  sign up 05, other 05 11:00, view 06           ordered 2, strict 1, unordered 2
 *
 * Exclusions, June 2021:
 *   f8   sign up 01, blocked 02, view 03, pay 04
 *   f9   sign up 01, view 02, blocked 03, pay 04
 *   f10  sign up 01 10:00, blocked 01 11:00, sign up 02 (a clean attempt), view 03
 */
const FUNNEL = `${PERSONS}/funnel/`;
const STEPS = {
  events: [
    { id: 'sign up', type: 'events', order: 0 },
    { id: 'view', type: 'events', order: 1 },
    { id: 'pay', type: 'events', order: 2 },
  ],
  date_from: '2021-05-01',
  date_to: '2021-05-31',
};

describe('persons analysis: funnel actors', () => {
  let server: TallyServer;
  let keys: Record<string, string>;

  before(async () => {
    ({ server, keys } = await startWithKeys({ insightOnly: 'insight:read' }));
    const at = (event: string, distinctId: string, day: string, properties: Record<string, unknown> = {}, time = '10:00:00') => ({
      event,
      distinct_id: distinctId,
      timestamp: `2021-05-${day}T${time}Z`,
      properties,
    });
    const june = (event: string, distinctId: string, when: string) => ({ event, distinct_id: distinctId, timestamp: `2021-06-${when}:00:00Z` });
    await sendBatch(server, [
      at('sign up', 'f1', '01', { $browser: 'Chrome' }),
      at('view', 'f1', '02'),
      at('pay', 'f1', '03'),
      at('sign up', 'f2', '01', { $browser: 'Safari' }),
      at('view', 'f2', '02'),
      at('sign up', 'f3', '01', { $browser: 'Chrome' }),
      at('sign up', 'f4', '01'),
      at('pay', 'f4', '02'),
      at('view', 'f4', '03'),
      at('sign up', 'f5', '01'),
      at('view', 'f5', '20'),
      at('view', 'f6', '02'),
      at('pay', 'f6', '03'),
      at('sign up', 'f7', '05'),
      at('other', 'f7', '05', {}, '11:00:00'),
      at('view', 'f7', '06'),
      // June: exclusions.
      june('sign up', 'f8', '01T10'),
      june('blocked', 'f8', '02T10'),
      june('view', 'f8', '03T10'),
      june('pay', 'f8', '04T10'),
      june('sign up', 'f9', '01T10'),
      june('view', 'f9', '02T10'),
      june('blocked', 'f9', '03T10'),
      june('pay', 'f9', '04T10'),
      june('sign up', 'f10', '01T10'),
      june('blocked', 'f10', '01T11'),
      june('sign up', 'f10', '02T10'),
      june('view', 'f10', '03T10'),
    ]);
  });
  after(() => server.dispose());

  const get = (params: Record<string, unknown>, key?: string) => server.get(`${FUNNEL}?${actorQuery({ ...STEPS, ...params })}`, { key });

  test('ordered: persons who reached each step, and who dropped off before it', async () => {
    const expected: Array<[number, string[]]> = [
      [1, ['f1', 'f2', 'f3', 'f4', 'f5', 'f7']],
      [2, ['f1', 'f2', 'f4', 'f7']],
      [3, ['f1']],
      [-2, ['f3', 'f5']],
      [-3, ['f2', 'f4', 'f7']],
    ];
    for (const [step, people] of expected) {
      const response = await get({ funnel_step: step });
      assert.deepEqual(sortedPeopleIds(response), people, `funnel_step=${step}`);
      assert.equal(response.body.missing_persons, 0);
      assert.equal(response.body.next, null);
    }
    assert.deepEqual(sortedPeopleIds(await get({ funnel_custom_steps: [1, 3] })), ['f1', 'f3', 'f5']);
  });

  test('strict: any other event of the person breaks the sequence', async () => {
    assert.deepEqual(sortedPeopleIds(await get({ funnel_order_type: 'strict', funnel_step: 2 })), ['f1', 'f2']);
    assert.deepEqual(sortedPeopleIds(await get({ funnel_order_type: 'strict', funnel_step: 3 })), ['f1']);
  });

  test('unordered: steps in any order within the window', async () => {
    assert.deepEqual(sortedPeopleIds(await get({ funnel_order_type: 'unordered', funnel_step: 3 })), ['f1', 'f4']);
    assert.deepEqual(sortedPeopleIds(await get({ funnel_order_type: 'unordered', funnel_step: 2 })), ['f1', 'f2', 'f4', 'f6', 'f7']);
    assert.deepEqual(sortedPeopleIds(await get({ funnel_order_type: 'unordered', funnel_step: -3 })), ['f2', 'f6', 'f7']);
  });

  test('the conversion window is measured from entry and is inclusive; funnel_window_days wins', async () => {
    assert.deepEqual(sortedPeopleIds(await get({ funnel_step: 2, funnel_window_days: 20 })), ['f1', 'f2', 'f4', 'f5', 'f7']);
    const oneDay = { funnel_window_interval: 1, funnel_window_interval_unit: 'day' };
    // f1's view is exactly one day after entry (counts); its payment two days after (does not).
    assert.deepEqual(sortedPeopleIds(await get({ ...oneDay, funnel_step: 2 })), ['f1', 'f2', 'f7']);
    assert.deepEqual(sortedPeopleIds(await get({ ...oneDay, funnel_step: 3 })), []);
    assert.deepEqual(sortedPeopleIds(await get({ ...oneDay, funnel_step: 3, funnel_window_days: 14 })), ['f1']);
    // date_from=all reads from the first event (May and June).
    assert.deepEqual(sortedPeopleIds(await get({ funnel_step: 3, date_from: 'all', date_to: '2021-06-30' })), ['f1', 'f8', 'f9']);
    // Events after date_to are not seen.
    assert.deepEqual(sortedPeopleIds(await get({ funnel_step: 3, date_to: '2021-05-02' })), []);
  });

  test('funnel_step_breakdown keeps the persons attributed to one breakdown value (first touch)', async () => {
    const byBrowser = { breakdown: '$browser', breakdown_type: 'event', funnel_step: 1 };
    assert.deepEqual(sortedPeopleIds(await get({ ...byBrowser, funnel_step_breakdown: ['Chrome'] })), ['f1', 'f3']);
    assert.deepEqual(sortedPeopleIds(await get({ ...byBrowser, funnel_step_breakdown: 'Safari' })), ['f2']);
    assert.deepEqual(sortedPeopleIds(await get({ ...byBrowser, funnel_step_breakdown: [''] })), ['f4', 'f5', 'f7']);
    assert.deepEqual(sortedPeopleIds(await get({ ...byBrowser, funnel_step: 2, funnel_step_breakdown: ['Chrome'] })), ['f1']);
  });

  test('exclusions: an attempt that met an exclusion between its steps does not count', async () => {
    const june = { date_from: '2021-06-01', date_to: '2021-06-30' };
    const blocked = (from: number, to: number) => [{ id: 'blocked', type: 'events', funnel_from_step: from, funnel_to_step: to }];
    const expected: Array<[Record<string, unknown>, string[]]> = [
      [{ funnel_step: 1 }, ['f10', 'f8', 'f9']],
      [{ funnel_step: 1, exclusions: blocked(0, 1) }, ['f10', 'f9']],
      [{ funnel_step: 2, exclusions: blocked(0, 1) }, ['f10', 'f9']],
      [{ funnel_step: 3, exclusions: blocked(0, 1) }, ['f9']],
      [{ funnel_step: 1, exclusions: blocked(1, 2) }, ['f10', 'f8']],
      [{ funnel_step: -3, exclusions: blocked(1, 2) }, ['f10']],
      // Unordered: an attempt from a later step, with no exclusion after it, still counts.
      [{ funnel_step: 1, exclusions: blocked(0, 2), funnel_order_type: 'unordered' }, ['f10', 'f8', 'f9']],
      [{ funnel_step: 2, exclusions: blocked(0, 2), funnel_order_type: 'unordered' }, ['f10', 'f8']],
      [{ funnel_step: 3, exclusions: blocked(0, 2), funnel_order_type: 'unordered' }, []],
    ];
    for (const [params, people] of expected) assert.deepEqual(sortedPeopleIds(await get({ ...june, ...params })), people, JSON.stringify(params));
    for (const exclusions of [
      blocked(1, 1),
      blocked(0, 3),
      [{ id: 'view', type: 'events', funnel_from_step: 0, funnel_to_step: 1 }],
      [{ id: 'blocked', funnel_from_step: 'a', funnel_to_step: 1 }],
      '[{',
    ]) {
      const response = await get({ ...june, funnel_step: 1, exclusions });
      assert.equal(response.status, 400, JSON.stringify(exclusions));
      assert.equal(response.body.attr, 'exclusions');
    }
    const partial = await get({ ...june, funnel_step: 1, exclusions: blocked(0, 1), funnel_order_type: 'unordered' });
    assert.equal(partial.status, 400);
  });

  test('funnel trends: persons entering in one period who converted, or dropped off', async () => {
    const trends = { funnel_viz_type: 'trends', interval: 'day' };
    const expected: Array<[Record<string, unknown>, string[]]> = [
      [{ entrance_period_start: '2021-05-01 00:00:00', drop_off: false }, ['f1']],
      [{ entrance_period_start: '2021-05-01 00:00:00', drop_off: true }, ['f2', 'f3', 'f4', 'f5']],
      [{ entrance_period_start: '2021-05-01 00:00:00', drop_off: 'false', funnel_to_step: 1 }, ['f1', 'f2', 'f4']],
      [{ entrance_period_start: '2021-05-01 00:00:00', drop_off: 'true', funnel_from_step: 1 }, ['f2', 'f4']],
      [{ entrance_period_start: '2021-05-05 00:00:00', drop_off: true }, ['f7']],
      [{ entrance_period_start: '2021-05-05 00:00:00', drop_off: false }, []],
      [{ entrance_period_start: '2021-05-02 00:00:00', drop_off: true }, []],
    ];
    for (const [params, people] of expected) assert.deepEqual(sortedPeopleIds(await get({ ...trends, ...params })), people, JSON.stringify(params));
    for (const [params, attr] of [
      [{ entrance_period_start: '2021-05-01 00:00:00' }, 'drop_off'],
      [{ drop_off: true }, 'entrance_period_start'],
      [{ entrance_period_start: 'May', drop_off: true }, 'entrance_period_start'],
      [{ entrance_period_start: '2021-05-01 00:00:00', drop_off: true, funnel_from_step: 2 }, 'funnel_to_step'],
      [{ entrance_period_start: '2021-05-01 00:00:00', drop_off: true, funnel_to_step: 7 }, 'funnel_to_step'],
    ] as Array<[Record<string, unknown>, string]>) {
      const response = await get({ ...trends, ...params });
      assert.equal(response.status, 400, JSON.stringify(params));
      assert.equal(response.body.attr, attr, JSON.stringify(params));
    }
  });

  test('POST takes the filter as a JSON body; an action can be a step', async () => {
    const action = await server.post('/api/projects/1/actions/', { name: 'Paid', steps: [{ event: 'pay' }] });
    assert.equal(action.status, 201, action.text);
    const body = {
      events: STEPS.events.slice(0, 2),
      actions: [{ id: action.body.id, type: 'actions', order: 2 }],
      date_from: STEPS.date_from,
      date_to: STEPS.date_to,
      funnel_step: 3,
    };
    assert.deepEqual(sortedPeopleIds(await server.post(FUNNEL, body)), ['f1']);
  });

  test('limit and offset page the persons newest first, then by id', async () => {
    const first = await get({ funnel_step: 1, limit: 4 });
    const next = new URL(first.body.next);
    assert.equal(next.searchParams.get('offset'), '4');
    const second = await server.get(next.pathname + next.search);
    assert.equal(second.body.next, null);
    // f7 first appeared on 5 May; f1–f5 together on 1 May, so the later-made person comes first.
    assert.deepEqual([...peopleIds(first), ...peopleIds(second)], ['f7', 'f5', 'f4', 'f3', 'f2', 'f1']);
    assert.equal(first.body.results[0].count, 4);
  });

  test('bad input is a 400 naming the field; the scope is person:read', async () => {
    for (const [params, attr] of [
      [{}, 'funnel_step'],
      [{ funnel_step: -1 }, 'funnel_step'],
      [{ funnel_step: 4 }, 'funnel_step'],
      [{ funnel_step: 'two' }, 'funnel_step'],
      [{ funnel_custom_steps: '[x' }, 'funnel_custom_steps'],
      [{ funnel_step: 1, funnel_order_type: 'random' }, 'funnel_order_type'],
      [{ funnel_step: 1, funnel_window_interval_unit: 'year' }, 'funnel_window_interval_unit'],
      [{ funnel_step: 1, funnel_window_days: 0 }, 'funnel_window_days'],
      [{ funnel_step: 1, events: [] }, 'events'],
      [{ funnel_step: 1, date_from: 'last week' }, 'date_from'],
      [{ funnel_step: 1, properties: '{' }, 'properties'],
    ] as Array<[Record<string, unknown>, string]>) {
      const response = await get(params);
      assert.equal(response.status, 400, `${JSON.stringify(params)} ${response.text}`);
      assert.equal(response.body.attr, attr, JSON.stringify(params));
    }
    assert.deepEqual((await get({ funnel_step: 1 }, keys.insightOnly)).body, ERRORS.missingScope('person:read'));
  });
});
