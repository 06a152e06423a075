import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sendBatch } from '../support/capture.js';
import { ACTIONS, createCohort, daysAgo, definedBy, memberIds, minutesAgo } from '../support/cohorts.js';
import { startWithKeys, validationError } from '../support/persons.js';
import type { TallyServer } from '../support/tally.js';

const behaviour = (value: string, key: string | number, extra: Record<string, unknown> = {}) => ({
  type: 'behavioral',
  key,
  value,
  event_type: typeof key === 'number' ? 'actions' : 'events',
  time_value: 7,
  time_interval: 'day',
  ...extra,
});

/** Each behavioural cohort filter, over events placed relative to the current time. */
describe('cohorts API: behavioural filters', () => {
  let server: TallyServer;

  before(async () => {
    ({ server } = await startWithKeys());
    await sendBatch(server, [
      // recent: bought twice this week, first purchase 30 days ago
      { event: 'purchase', distinct_id: 'recent', timestamp: daysAgo(30), properties: { plan: 'pro' } },
      { event: 'purchase', distinct_id: 'recent', timestamp: daysAgo(2), properties: { plan: 'pro' } },
      { event: 'purchase', distinct_id: 'recent', timestamp: minutesAgo(30), properties: { plan: 'free' } },
      // newbie: first purchase ever yesterday
      { event: 'purchase', distinct_id: 'newbie', timestamp: daysAgo(1), properties: { plan: 'free' } },
      // lapsed: bought 10 and 5 days ago, nothing since
      { event: 'purchase', distinct_id: 'lapsed', timestamp: daysAgo(10) },
      { event: 'purchase', distinct_id: 'lapsed', timestamp: daysAgo(5) },
      // returner: bought 40 days ago, not between 14 and 3 days ago, again yesterday
      { event: 'purchase', distinct_id: 'returner', timestamp: daysAgo(40) },
      { event: 'purchase', distinct_id: 'returner', timestamp: daysAgo(1) },
      // regular: a visit in each of the last three days
      { event: 'visit', distinct_id: 'regular', timestamp: minutesAgo(60) },
      { event: 'visit', distinct_id: 'regular', timestamp: daysAgo(1.5) },
      { event: 'visit', distinct_id: 'regular', timestamp: daysAgo(2.5) },
      { event: 'visit', distinct_id: 'newbie', timestamp: daysAgo(2.5) },
      // sequencer: signup then purchase within an hour; slowpoke: purchase two days after signup
      { event: 'signup', distinct_id: 'sequencer', timestamp: daysAgo(2) },
      { event: 'purchase', distinct_id: 'sequencer', timestamp: new Date(Date.now() - 2 * 86_400_000 + 20 * 60_000).toISOString() },
      { event: 'signup', distinct_id: 'slowpoke', timestamp: daysAgo(4) },
      { event: 'purchase', distinct_id: 'slowpoke', timestamp: daysAgo(2) },
      { event: 'seen', distinct_id: 'idle', timestamp: daysAgo(1) },
    ]);
  });
  after(() => server.dispose());

  test('performed_event, with event_filters and explicit_datetime', async () => {
    const week = await createCohort(server, { name: 'Bought this week', ...definedBy(behaviour('performed_event', 'purchase')) });
    assert.deepEqual(await memberIds(server, week.id), ['lapsed', 'newbie', 'recent', 'returner', 'sequencer', 'slowpoke']);
    assert.equal(week.cohort_type, 'behavioral');
    const freePlan = await createCohort(server, {
      name: 'Bought free this week',
      ...definedBy(behaviour('performed_event', 'purchase', { event_filters: [{ type: 'event', key: 'plan', value: 'free', operator: 'exact' }] })),
    });
    assert.deepEqual(await memberIds(server, freePlan.id), ['newbie', 'recent']);
    const explicit = await createCohort(server, {
      name: 'Since three days ago',
      ...definedBy(behaviour('performed_event', 'purchase', { time_value: null, time_interval: null, explicit_datetime: '-3d' })),
    });
    assert.deepEqual(await memberIds(server, explicit.id), ['newbie', 'recent', 'returner', 'sequencer', 'slowpoke']);
  });

  test('performed_event_multiple with each count operator', async () => {
    const twice = (operator: string, value: number) =>
      createCohort(server, {
        name: `${operator} ${value}`,
        ...definedBy(behaviour('performed_event_multiple', 'purchase', { time_value: 14, operator, operator_value: value })),
      });
    assert.deepEqual(await memberIds(server, (await twice('gte', 2)).id), ['lapsed', 'recent']);
    assert.deepEqual(await memberIds(server, (await twice('eq', 1)).id), ['newbie', 'returner', 'sequencer', 'slowpoke']);
    assert.deepEqual(await memberIds(server, (await twice('lt', 2)).id), ['idle', 'newbie', 'regular', 'returner', 'sequencer', 'slowpoke']);
  });

  test('performed_event_first_time', async () => {
    const first = await createCohort(server, {
      name: 'First purchase in 3 days',
      ...definedBy(behaviour('performed_event_first_time', 'purchase', { time_value: 3 })),
    });
    assert.deepEqual(await memberIds(server, first.id), ['newbie', 'sequencer', 'slowpoke']);
    assert.equal(first.cohort_type, 'analytical');
  });

  test('stopped_performing_event and restarted_performing_event', async () => {
    const stopped = await createCohort(server, {
      name: 'Stopped',
      ...definedBy(behaviour('stopped_performing_event', 'purchase', { time_value: 14, seq_time_value: 3, seq_time_interval: 'day' })),
    });
    assert.deepEqual(await memberIds(server, stopped.id), ['lapsed']);
    const restarted = await createCohort(server, {
      name: 'Restarted',
      ...definedBy(behaviour('restarted_performing_event', 'purchase', { time_value: 14, seq_time_value: 3, seq_time_interval: 'day' })),
    });
    // Both bought before the 14-day window, not between 14 and 3 days ago, and again since.
    assert.deepEqual(await memberIds(server, restarted.id), ['recent', 'returner']);
  });

  test('performed_event_regularly', async () => {
    const regular = await createCohort(server, {
      name: 'Daily visitors',
      ...definedBy(behaviour('performed_event_regularly', 'visit', { time_value: 1, operator: 'gte', operator_value: 1, total_periods: 3, min_periods: 3 })),
    });
    assert.deepEqual(await memberIds(server, regular.id), ['regular']);
    const sometimes = await createCohort(server, {
      name: 'Sometimes',
      ...definedBy(behaviour('performed_event_regularly', 'visit', { time_value: 1, operator: 'gte', operator_value: 1, total_periods: 3, min_periods: 1 })),
    });
    assert.deepEqual(await memberIds(server, sometimes.id), ['newbie', 'regular']);
  });

  test('performed_event_sequence', async () => {
    const sequence = await createCohort(server, {
      name: 'Signup then purchase within an hour',
      ...definedBy(behaviour('performed_event_sequence', 'signup', { seq_event: 'purchase', seq_time_value: 1, seq_time_interval: 'hour' })),
    });
    assert.deepEqual(await memberIds(server, sequence.id), ['sequencer']);
    const withinDays = await createCohort(server, {
      name: 'Signup then purchase within three days',
      ...definedBy(behaviour('performed_event_sequence', 'signup', { seq_event: 'purchase', seq_time_value: 3, seq_time_interval: 'day' })),
    });
    assert.deepEqual(await memberIds(server, withinDays.id), ['sequencer', 'slowpoke']);
  });

  test('negated behaviour and behaviour on an action', async () => {
    const notBought = await createCohort(server, {
      name: 'Visited but did not buy',
      ...definedBy(behaviour('performed_event', 'visit'), behaviour('performed_event', 'purchase', { negation: true })),
    });
    assert.deepEqual(await memberIds(server, notBought.id), ['regular']);
    const action = await server.post(`${ACTIONS}/`, { name: 'Signed up', steps: [{ event: 'signup' }] });
    assert.equal(action.status, 201, action.text);
    const viaAction = await createCohort(server, { name: 'Signed up (action)', ...definedBy(behaviour('performed_event', action.body.id)) });
    assert.deepEqual(await memberIds(server, viaAction.id), ['sequencer', 'slowpoke']);
  });

  test('invalid behavioural filters are 400s on filters', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [
        behaviour('performed_event_sometimes', 'x'),
        `Behavioral filter value must be one of performed_event, performed_event_multiple, performed_event_first_time, stopped_performing_event, restarted_performing_event, performed_event_regularly, performed_event_sequence.`,
      ],
      [behaviour('performed_event', 'x', { time_interval: 'fortnight' }), 'time_interval must be one of minute, hour, day, week, month, year.'],
      [behaviour('performed_event_multiple', 'x', { operator: 'gte' }), 'operator_value must be a positive integer.'],
      [
        behaviour('stopped_performing_event', 'x', { seq_time_value: 7, seq_time_interval: 'day' }),
        'seq_time_value must be a more recent window than time_value.',
      ],
      [
        behaviour('performed_event_regularly', 'x', { operator_value: 1, total_periods: 2, min_periods: 3 }),
        'min_periods (3) cannot be greater than total_periods (2).',
      ],
      [behaviour('performed_event', 12_345), 'Action 12345 does not exist.'],
      [{ type: 'behavioral', key: 'x', event_type: 'events' }, 'Missing required keys for behavioral filter: value'],
      [behaviour('performed_event', 'x', { explicit_datetime: 'last tuesday' }), 'explicit_datetime "last tuesday" is not a date.'],
      [behaviour('performed_event', 'x', { explicit_datetime: '-99999999999d' }), 'explicit_datetime "-99999999999d" is not a date.'],
    ];
    for (const [filter, detail] of cases) {
      const response = await server.post('/api/projects/1/cohorts/', { name: 'Bad', ...definedBy(filter) });
      assert.equal(response.status, 400, JSON.stringify(filter));
      assert.deepEqual(response.body, validationError(detail, 'filters'));
    }
  });
});
