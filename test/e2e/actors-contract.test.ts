import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { actorQuery, peopleIds } from '../support/actors.js';
import { sendBatch } from '../support/capture.js';
import { PERSONS } from '../support/persons.js';
import { TallyServer } from '../support/tally.js';

/**
 * What every actors endpoint shares: GET and POST, `limit` (default 100, at most 1,000) and
 * `offset`, a `next` link while more actors remain (none after an exactly full last page) that
 * carries a POST body's parameters, and an `initial` link to the first page. Three persons view
 * a page on 2020-01-01 (a1 once, a2 twice, a3 three times) and come back on 2020-01-02.
 */
describe('persons analysis: the actors contract', () => {
  const server = new TallyServer();
  const RANGE = { date_from: '2020-01-01', date_to: '2020-01-02' };
  const PAGEVIEWS = { events: [{ id: '$pageview', order: 0 }] };
  const REQUESTS: Record<string, Record<string, unknown>> = {
    trends: { ...PAGEVIEWS, ...RANGE, entity_id: '$pageview', entity_type: 'events', date_to: '2020-01-01' },
    stickiness: { ...PAGEVIEWS, ...RANGE, entity_id: '$pageview', entity_type: 'events', stickiness_days: 2 },
    lifecycle: { ...PAGEVIEWS, ...RANGE, target_date: '2020-01-01', lifecycle_type: 'new' },
    funnel: {
      events: [
        { id: '$pageview', order: 0 },
        { id: 'bought', order: 1 },
      ],
      ...RANGE,
      funnel_step: 1,
    },
  };

  before(async () => {
    await server.start();
    const events = [];
    for (const [index, id] of ['a1', 'a2', 'a3'].entries()) {
      for (let count = 0; count <= index; count++) events.push({ event: '$pageview', distinct_id: id, timestamp: `2020-01-01T1${count}:00:00Z` });
      events.push({ event: '$pageview', distinct_id: id, timestamp: '2020-01-02T10:00:00Z' });
    }
    await sendBatch(server, events);
  });
  after(() => server.dispose());

  test('every actors endpoint answers GET and POST alike, with the same envelope', async () => {
    for (const [kind, params] of Object.entries(REQUESTS)) {
      const viaGet = await server.get(`${PERSONS}/${kind}/?${actorQuery(params)}`);
      const viaPost = await server.post(`${PERSONS}/${kind}/`, params);
      assert.equal(viaGet.status, 200, `${kind}: ${viaGet.text}`);
      assert.equal(viaPost.status, 200, `${kind}: ${viaPost.text}`);
      assert.deepEqual(peopleIds(viaPost), peopleIds(viaGet), kind);
      assert.deepEqual(peopleIds(viaGet).sort(), ['a1', 'a2', 'a3'], kind);
      for (const response of [viaGet, viaPost]) {
        assert.equal(response.body.next, null, `${kind}: three persons fit the default page`);
        assert.equal(response.body.missing_persons, 0);
        const initial = new URL(response.body.initial);
        assert.deepEqual([initial.searchParams.get('offset'), initial.searchParams.get('limit')], ['0', '100'], kind);
      }
    }
    const retention = await server.post(`${PERSONS}/retention/`, { date_to: '2020-01-02', total_intervals: 2, selected_interval: 0 });
    assert.equal(retention.status, 200, retention.text);
    assert.deepEqual(retention.body.result.map((row: { person: { distinct_ids: string[] } }) => row.person.distinct_ids[0]).sort(), ['a1', 'a2', 'a3']);
  });

  test('pages: next while more remain and none after an exactly full last page; a POST body travels in next', async () => {
    const first = await server.post(`${PERSONS}/trends/`, { ...REQUESTS.trends, limit: 2 });
    assert.deepEqual(peopleIds(first), ['a3', 'a2'], 'most events first');
    const next = new URL(first.body.next);
    assert.deepEqual([next.searchParams.get('offset'), next.searchParams.get('limit'), next.searchParams.get('entity_id')], ['2', '2', '$pageview']);
    assert.equal(next.searchParams.get('events'), JSON.stringify(REQUESTS.trends!.events));
    const second = await server.get(next.pathname + next.search);
    assert.deepEqual(peopleIds(second), ['a1']);
    assert.equal(second.body.next, null);

    const exact = await server.get(`${PERSONS}/trends/?${actorQuery({ ...REQUESTS.trends, limit: 3 })}`);
    assert.deepEqual(peopleIds(exact), ['a3', 'a2', 'a1']);
    assert.equal(exact.body.next, null, 'nothing remains after an exactly full page');
  });

  test('a limit above 1,000 is clamped to 1,000', async () => {
    const response = await server.get(`${PERSONS}/trends/?${actorQuery({ ...REQUESTS.trends, limit: 5000 })}`);
    assert.equal(new URL(response.body.initial).searchParams.get('limit'), '1000');
  });
});
