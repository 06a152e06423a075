import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { capture } from '../support/definitions.js';
import { TallyServer } from '../support/tally.js';

/**
 * Weekly and monthly active users at the edges of their rolling windows: a bucket starting at d
 * counts the persons with an event at t where d − 6 days < t ≤ d + 1 day (29 days for monthly).
 * Project 1 is on UTC, project 2 on US/Pacific.
 *
 *   ann  01-01 12:00 Chrome      → daily buckets 01-01 … 01-07
 *   bob  01-03 00:00 Safari      → 01-02 … 01-08 (a window's start is exclusive, its end inclusive)
 *   cy   01-09 23:59:59 Chrome   → 01-09 … 01-15
 */
describe('trends: weekly and monthly active users', () => {
  let server: TallyServer;
  let pacificToken: string;

  before(async () => {
    server = new TallyServer(undefined, { TALLY_PROJECT_TOKEN: 'phc_active_users' });
    pacificToken = server.createProject('Pacific', 'US/Pacific').api_token;
    server.personalApiKey = server.createKey('*');
    await server.start();
    await capture(server, 'phc_active_users', [
      { event: '$pageview', distinct_id: 'ann', timestamp: '2020-01-01T12:00:00Z', properties: { $browser: 'Chrome' } },
      { event: '$pageview', distinct_id: 'bob', timestamp: '2020-01-03T00:00:00Z', properties: { $browser: 'Safari' } },
      { event: '$pageview', distinct_id: 'cy', timestamp: '2020-01-09T23:59:59Z', properties: { $browser: 'Chrome' } },
    ]);
    // Midnight of 8 March 2020 in US/Pacific, the day clocks go forward.
    await capture(server, pacificToken, [{ event: '$pageview', distinct_id: 'pat', timestamp: '2020-03-08T08:00:00Z' }]);
  });
  after(() => server.dispose());

  async function series(body: Record<string, unknown>, project = 1): Promise<Array<[string, number[]]>> {
    const response = await server.post(`/api/projects/${project}/insights/trend/`, body);
    assert.equal(response.status, 200, response.text);
    return (response.body.result as Array<{ label: string; data: number[] }>).map((item) => [item.label, item.data]);
  }

  const WEEKLY = { events: [{ id: '$pageview', math: 'weekly_active' }] };

  test('daily buckets: window bounds are exclusive at the start and inclusive at the end', async () => {
    assert.deepEqual(await series({ ...WEEKLY, date_from: '2020-01-01', date_to: '2020-01-10' }), [['$pageview', [1, 2, 2, 2, 2, 2, 2, 1, 1, 1]]]);
  });

  test('a breakdown counts each person in the windows of its value', async () => {
    assert.deepEqual(await series({ ...WEEKLY, breakdown: '$browser', date_from: '2020-01-01', date_to: '2020-01-10' }), [
      ['Chrome', [1, 1, 1, 1, 1, 1, 1, 0, 1, 1]],
      ['Safari', [0, 1, 1, 1, 1, 1, 1, 1, 0, 0]],
    ]);
  });

  test('hourly buckets slide hour by hour', async () => {
    assert.deepEqual(await series({ ...WEEKLY, interval: 'hour', date_from: '2020-01-07 10:00:00', date_to: '2020-01-07 14:00:00' }), [
      ['$pageview', [2, 2, 1, 1, 1]],
    ]);
  });

  test('monthly active users by week anchor each window on the first day of the week', async () => {
    assert.deepEqual(
      await series({ events: [{ id: '$pageview', math: 'monthly_active' }], interval: 'week', date_from: '2020-01-01', date_to: '2020-01-31' }),
      [['$pageview', [0, 2, 3, 3, 3]]],
    );
  });

  test('windows follow local midnights in the project timezone, across DST', async () => {
    assert.deepEqual(await series({ ...WEEKLY, date_from: '2020-03-06', date_to: '2020-03-15' }, 2), [['$pageview', [0, 1, 1, 1, 1, 1, 1, 1, 0, 0]]]);
  });
});
