import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { capture } from '../support/definitions.js';
import { TallyServer } from '../support/tally.js';

/**
 * Trends that only count events are answered from the warehouse's hourly counts (a projection of
 * the events table). Events sit on the edges of hours and days, in UTC, in a zone that changes
 * offset inside the range (Europe/Berlin), and in one whose offset is not whole hours
 * (Asia/Kolkata, where hourly counts cannot give a local day and the events are counted instead).
 */
describe('trends counted by the hour', () => {
  let server: TallyServer;
  let berlinToken: string;
  let kolkataToken: string;
  let berlin: number;
  let kolkata: number;
  const token = 'phc_hourly_counts_one';

  const trend = async (project: number, body: Record<string, unknown>) => {
    const response = await server.post(`/api/projects/${project}/insights/trend/`, body);
    assert.equal(response.status, 200, response.text);
    return response.body.result as { label: string; data: number[]; days: string[]; count: number; aggregated_value?: number }[];
  };

  before(async () => {
    server = new TallyServer(undefined, { TALLY_PROJECT_TOKEN: token });
    const berlinProject = server.createProject('Berlin', 'Europe/Berlin');
    const kolkataProject = server.createProject('Kolkata', 'Asia/Kolkata');
    berlin = berlinProject.id;
    kolkata = kolkataProject.id;
    berlinToken = berlinProject.api_token;
    kolkataToken = kolkataProject.api_token;
    server.personalApiKey = server.createKey('*');
    await server.start();
    await capture(server, token, [
      { event: '$pageview', distinct_id: 'a', timestamp: '2020-01-01T23:59:59.999999Z' },
      { event: '$pageview', distinct_id: 'a', timestamp: '2020-01-02T00:00:00Z' },
      { event: '$pageview', distinct_id: 'b', timestamp: '2020-01-02T13:00:00.5Z' },
      { event: '$pageview', distinct_id: 'gone', timestamp: '2020-01-02T13:30:00Z' },
      { event: '$pageview', distinct_id: 'b', timestamp: '2020-01-03T23:59:59.999999Z' },
      { event: '$pageview', distinct_id: 'b', timestamp: '2020-01-04T00:00:00Z' },
      { event: 'sign up', distinct_id: 'a', timestamp: '2020-01-02T00:00:00.000001Z' },
      { event: 'sign up', distinct_id: 'gone', timestamp: '2020-01-03T12:00:00Z' },
      { event: 'other', distinct_id: 'a', timestamp: '2020-01-02T05:00:00Z' },
    ]);
    await capture(server, berlinToken, [
      { event: '$pageview', distinct_id: 'a', timestamp: '2020-03-27T22:59:59Z' },
      { event: '$pageview', distinct_id: 'a', timestamp: '2020-03-28T23:00:00Z' },
      { event: '$pageview', distinct_id: 'a', timestamp: '2020-03-29T21:59:59Z' },
      { event: '$pageview', distinct_id: 'a', timestamp: '2020-03-29T22:00:00Z' },
    ]);
    await capture(server, kolkataToken, [
      { event: '$pageview', distinct_id: 'a', timestamp: '2020-01-01T18:29:59Z' },
      { event: '$pageview', distinct_id: 'a', timestamp: '2020-01-01T18:30:00Z' },
    ]);
  });
  after(() => server.dispose());

  test('days hold exactly the events of their hours, to the microsecond at both ends', async () => {
    const [pageviews, signUps] = await trend(1, { events: [{ id: '$pageview' }, { id: 'sign up' }], date_from: '2020-01-02', date_to: '2020-01-03' });
    assert.deepEqual(pageviews!.days, ['2020-01-02', '2020-01-03']);
    assert.deepEqual(pageviews!.data, [3, 1]);
    assert.deepEqual(signUps!.data, [1, 1]);
    const filtered = {
      events: [{ id: '$pageview' }],
      date_from: '2020-01-02',
      date_to: '2020-01-03',
      properties: [{ key: 'plan', value: 'pro', type: 'event' }],
    };
    assert.deepEqual((await trend(1, filtered))[0]!.data, [0, 0]);
  });

  test('hours, weeks, a formula and a single value over the range', async () => {
    const [hourly] = await trend(1, { events: [{ id: '$pageview' }], date_from: '2020-01-02', date_to: '2020-01-02T23:00:00', interval: 'hour' });
    assert.equal(hourly!.data.length, 24);
    assert.deepEqual(
      hourly!.data.flatMap((count, hour) => (count > 0 ? [[hour, count]] : [])),
      [
        [0, 1],
        [13, 2],
      ],
    );
    const [weekly] = await trend(1, { events: [{ id: '$pageview' }], date_from: '2019-12-29', date_to: '2020-01-11', interval: 'week' });
    assert.deepEqual(weekly!.data, [6, 0]);
    const [ratio] = await trend(1, { events: [{ id: '$pageview' }, { id: 'sign up' }], formula: 'A / B', date_from: '2020-01-02', date_to: '2020-01-03' });
    assert.deepEqual(ratio!.data, [3, 1]);
    const [total] = await trend(1, { events: [{ id: '$pageview' }], date_from: '2020-01-02', date_to: '2020-01-03', display: 'BoldNumber' });
    assert.equal(total!.aggregated_value, 4);
  });

  test('a local day across a change of offset, and a zone half an hour off UTC', async () => {
    const [inBerlin] = await trend(berlin, { events: [{ id: '$pageview' }], date_from: '2020-03-27', date_to: '2020-03-30' });
    assert.deepEqual(inBerlin!.days, ['2020-03-27', '2020-03-28', '2020-03-29', '2020-03-30']);
    assert.deepEqual(inBerlin!.data, [1, 0, 2, 1]);
    const [inKolkata] = await trend(kolkata, { events: [{ id: '$pageview' }], date_from: '2020-01-01', date_to: '2020-01-02' });
    assert.deepEqual(inKolkata!.data, [1, 1]);
    // Bounds on whole UTC hours, days half an hour off them.
    const explicit = { date_from: '2020-01-01T05:30:00', date_to: '2020-01-02T05:29:59.999', explicit_date: true };
    const [explicitInKolkata] = await trend(kolkata, { events: [{ id: '$pageview' }], ...explicit });
    assert.deepEqual(explicitInKolkata!.data, [1, 1]);
  });

  test('bounds inside an hour count the events on their side of the minute only', async () => {
    const [untilQuarterPast] = await trend(1, { events: [{ id: '$pageview' }], date_from: '2020-01-02', date_to: '2020-01-02T13:15:00', explicit_date: true });
    assert.deepEqual(untilQuarterPast!.data, [2]);
    const [fromQuarterPast] = await trend(1, {
      events: [{ id: '$pageview' }],
      date_from: '2020-01-02T13:15:00',
      date_to: '2020-01-02T23:59:59.999',
      explicit_date: true,
    });
    assert.deepEqual(fromQuarterPast!.data, [1]);
  });

  test("a person's deleted events leave the counts", async () => {
    const person = (await server.get('/api/projects/1/persons/?distinct_id=gone')).body.results[0];
    assert.equal((await server.delete(`/api/projects/1/persons/${person.id}/?delete_events=true`)).status, 204);
    await server.stop();
    const run = server.cli(['jobs', 'run']);
    assert.equal(run.status, 0, run.stderr);
    await server.start();
    const [pageviews, signUps] = await trend(1, { events: [{ id: '$pageview' }, { id: 'sign up' }], date_from: '2020-01-02', date_to: '2020-01-03' });
    assert.deepEqual(pageviews!.data, [2, 1]);
    assert.deepEqual(signUps!.data, [1, 0]);
  });
});
