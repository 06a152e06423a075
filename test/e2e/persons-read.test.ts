import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sendBatch } from '../support/capture.js';
import { createCohort, definedBy } from '../support/cohorts.js';
import { PERSONS, badPersonId, jsonParam, personOf, startWithKeys, validationError } from '../support/persons.js';
import { ERRORS, type TallyServer } from '../support/tally.js';

/** Retrieve, values, cohorts and properties_timeline over captured persons. */
describe('persons API: retrieve, values, cohorts, properties timeline', () => {
  let server: TallyServer;
  let keys: Record<string, string>;
  let otherProjectPersonId: number;

  before(async () => {
    ({ server, keys } = await startWithKeys({ personRead: 'person:read', both: 'person:read,cohort:read' }));
    await server.stop();
    const other = server.createProject('Other');
    await server.start();
    await sendBatch(server, [
      { event: 'pageview', distinct_id: 'tl', timestamp: '2024-01-01T10:00:00Z', properties: { $set: { plan: 'free', color: 'red' } } },
      { event: 'pageview', distinct_id: 'tl', timestamp: '2024-01-02T10:00:00Z', properties: { $set: { color: 'blue' } } },
      { event: 'purchase', distinct_id: 'tl', timestamp: '2024-01-03T10:00:00Z', properties: { $set: { plan: 'pro' } } },
      { event: 'pageview', distinct_id: 'tl', timestamp: '2024-01-04T10:00:00.250000Z' },
      { event: 'seen', distinct_id: 'v1', properties: { $set: { plan: 'pro', flag: true, age: 30, obj: { b: 1, a: 2 }, blank: '' } } },
      { event: 'seen', distinct_id: 'v2', properties: { $set: { plan: 'Pro', flag: 'true', age: 30.5, obj: { a: 2, b: 1 }, blank: null } } },
      { event: 'seen', distinct_id: 'v3', properties: { $set: { plan: 'free', flag: false } } },
    ]);
    await sendBatch(server, [{ event: 'seen', distinct_id: 'tl' }], { api_key: other.api_token });
    await server.stop();
    // The other project's person is the newest; find its id through project 1's key, which cannot see it.
    await server.start();
    otherProjectPersonId = (await personOf(server, 'v3')).id + 1;
  });
  after(() => server.dispose());

  test('retrieve by integer id, by UUID in any case', async () => {
    const listed = await personOf(server, 'tl');
    for (const id of [String(listed.id), listed.uuid, listed.uuid.toUpperCase()]) {
      const response = await server.get(`${PERSONS}/${id}/`);
      assert.equal(response.status, 200, id);
      assert.deepEqual(response.body, listed);
    }
    const withoutSlash = await server.get(`${PERSONS}/${listed.id}`);
    assert.deepEqual(withoutSlash.body, listed);
  });

  test("retrieve errors: a distinct id is 400 with PostHog's hint, unknown ids and other projects are 404", async () => {
    for (const id of ['tl', '-1', '1.5', 'abc%20def']) {
      const response = await server.get(`${PERSONS}/${id}/`);
      assert.equal(response.status, 400, id);
      assert.deepEqual(response.body, badPersonId(decodeURIComponent(id)));
    }
    for (const id of ['0', '987654', String(otherProjectPersonId), 'f0e1d2c3-b4a5-4678-9abc-def012345678']) {
      const response = await server.get(`${PERSONS}/${id}/`);
      assert.equal(response.status, 404, id);
      assert.deepEqual(response.body, ERRORS.notFound);
    }
  });

  test('values: top values with counts, stringified, null and empty excluded, equal spellings merged', async () => {
    assert.deepEqual((await server.get(`${PERSONS}/values/?key=plan`)).body, [
      { name: 'pro', count: 2 },
      { name: 'Pro', count: 1 },
      { name: 'free', count: 1 },
    ]);
    assert.deepEqual((await server.get(`${PERSONS}/values/?key=flag`)).body, [
      { name: 'true', count: 2 },
      { name: 'false', count: 1 },
    ]);
    assert.deepEqual((await server.get(`${PERSONS}/values/?key=age`)).body, [
      { name: '30', count: 1 },
      { name: '30.5', count: 1 },
    ]);
    assert.deepEqual((await server.get(`${PERSONS}/values/?key=obj`)).body, [{ name: '{"a":2,"b":1}', count: 2 }]);
    assert.deepEqual((await server.get(`${PERSONS}/values/?key=blank`)).body, []);
  });

  test('values: `value` is a case-insensitive substring; no key or an unknown key is []', async () => {
    assert.deepEqual((await server.get(`${PERSONS}/values/?key=plan&value=PR`)).body, [
      { name: 'pro', count: 2 },
      { name: 'Pro', count: 1 },
    ]);
    assert.deepEqual((await server.get(`${PERSONS}/values/`)).body, []);
    assert.deepEqual((await server.get(`${PERSONS}/values/?key=nothing`)).body, []);
  });

  test('cohorts: the cohorts a person belongs to now; the person is checked first', async () => {
    const person = await personOf(server, 'v1');
    assert.deepEqual((await server.get(`${PERSONS}/cohorts/?person_id=${person.id}`)).body, { results: [] });
    const pro = await createCohort(server, { name: 'Pro plan', ...definedBy({ key: 'plan', value: 'pro', type: 'person', operator: 'exact' }) });
    await createCohort(server, { name: 'Free plan', ...definedBy({ key: 'plan', value: 'free', type: 'person', operator: 'exact' }) });
    const member = await server.get(`${PERSONS}/cohorts/?person_id=${person.uuid}`);
    assert.equal(member.status, 200);
    assert.deepEqual(
      member.body.results.map((cohort: any) => [cohort.id, cohort.name, cohort.count]),
      [[pro.id, 'Pro plan', 2]],
    );
    const listed = await server.get(`${PERSONS}/?properties=${jsonParam([{ key: 'id', value: pro.id, type: 'cohort' }])}`);
    assert.deepEqual(
      listed.body.results.map((p: any) => p.distinct_ids[0]),
      ['v1', 'tl'],
    );
    const outside = await server.get(`${PERSONS}/?properties=${jsonParam([{ key: 'id', value: pro.id, type: 'cohort', negation: true }])}`);
    assert.deepEqual(
      outside.body.results.map((p: any) => p.distinct_ids[0]),
      ['v3', 'v2'],
    );
    assert.deepEqual((await server.get(`${PERSONS}/cohorts/`)).body, validationError('This field is required.', 'person_id', 'required'));
    assert.deepEqual((await server.get(`${PERSONS}/cohorts/?person_id=424242`)).body, ERRORS.notFound);
    assert.deepEqual((await server.get(`${PERSONS}/cohorts/?person_id=tl`)).body, badPersonId('tl'));
  });

  test('cohorts needs person:read and cohort:read', async () => {
    const person = await personOf(server, 'tl');
    const refused = await server.get(`${PERSONS}/cohorts/?person_id=${person.id}`, { key: keys.personRead });
    assert.equal(refused.status, 403);
    assert.deepEqual(refused.body, ERRORS.missingScope('cohort:read'));
    assert.equal((await server.get(`${PERSONS}/cohorts/?person_id=${person.id}`, { key: keys.both })).status, 200);
  });

  test('properties_timeline: a point wherever a crucial property changed, counting events to the next', async () => {
    const person = await personOf(server, 'tl');
    const filter = jsonParam([{ key: 'plan', value: 'pro', type: 'person' }]);
    const response = await server.get(`${PERSONS}/${person.id}/properties_timeline/?date_from=2024-01-01&date_to=2024-01-05&properties=${filter}`);
    assert.equal(response.status, 200, response.text);
    const creator = response.body.points[0].properties.$creator_event_uuid;
    assert.deepEqual(response.body, {
      points: [
        { timestamp: '2024-01-01T10:00:00Z', properties: { plan: 'free', color: 'red', $creator_event_uuid: creator }, relevant_event_count: 2 },
        { timestamp: '2024-01-03T10:00:00Z', properties: { plan: 'pro', color: 'blue', $creator_event_uuid: creator }, relevant_event_count: 2 },
      ],
      crucial_property_keys: ['plan'],
      effective_date_from: '2024-01-01T00:00:00+00:00',
      effective_date_to: '2024-01-05T23:59:59.999999+00:00',
    });
  });

  test('properties_timeline: no crucial keys is one point; series pick the events; breakdowns add keys', async () => {
    const person = await personOf(server, 'tl');
    const path = `${PERSONS}/${person.id}/properties_timeline/?date_from=2024-01-01&date_to=2024-01-05`;
    const all = await server.get(path);
    assert.deepEqual(
      all.body.points.map((point: any) => [point.timestamp, point.relevant_event_count]),
      [['2024-01-01T10:00:00Z', 4]],
    );
    assert.deepEqual(all.body.crucial_property_keys, []);

    const events = jsonParam([{ id: 'pageview', properties: [{ key: 'color', value: 'x', type: 'person' }] }]);
    const pageviews = await server.get(`${path}&events=${events}`);
    assert.deepEqual(pageviews.body.crucial_property_keys, ['color']);
    assert.deepEqual(
      pageviews.body.points.map((point: any) => [point.timestamp, point.properties.color, point.relevant_event_count]),
      [
        ['2024-01-01T10:00:00Z', 'red', 1],
        ['2024-01-02T10:00:00Z', 'blue', 2],
      ],
    );
    const breakdown = await server.get(`${path}&breakdown=plan&breakdown_type=person&properties=${jsonParam([{ key: 'color', value: 'x', type: 'person' }])}`);
    assert.deepEqual(breakdown.body.crucial_property_keys, ['color', 'plan']);
    assert.equal(breakdown.body.points.length, 3);
  });

  test('properties_timeline: a single-day range, date_from=all, and fractional times', async () => {
    const person = await personOf(server, 'tl');
    const day = await server.get(`${PERSONS}/${person.id}/properties_timeline/?date_from=2024-01-02&date_to=2024-01-02`);
    assert.deepEqual(
      day.body.points.map((point: any) => point.timestamp),
      ['2024-01-02T10:00:00Z'],
    );
    assert.equal(day.body.effective_date_to, '2024-01-02T23:59:59.999999+00:00');
    const all = await server.get(
      `${PERSONS}/${person.id}/properties_timeline/?date_from=all&properties=${jsonParam([{ key: 'x', value: 1, type: 'person' }])}`,
    );
    assert.equal(all.body.effective_date_from, '2024-01-01T00:00:00+00:00');
    assert.deepEqual(
      all.body.points.map((point: any) => point.relevant_event_count),
      [4],
    );
    const late = await server.get(`${PERSONS}/${person.id}/properties_timeline/?date_from=2024-01-04&date_to=2024-01-04`);
    assert.deepEqual(
      late.body.points.map((point: any) => point.timestamp),
      ['2024-01-04T10:00:00.250000Z'],
    );
  });

  test('properties_timeline errors', async () => {
    const person = await personOf(server, 'tl');
    assert.deepEqual((await server.get(`${PERSONS}/424242/properties_timeline/`)).body, ERRORS.notFound);
    assert.deepEqual((await server.get(`${PERSONS}/tl/properties_timeline/`)).body, badPersonId('tl'));
    const badDate = await server.get(`${PERSONS}/${person.id}/properties_timeline/?date_from=yesterday-ish`);
    assert.equal(badDate.status, 400);
    assert.equal(badDate.body.attr, 'date_from');
    const badEvents = await server.get(`${PERSONS}/${person.id}/properties_timeline/?events=%5B`);
    assert.equal(badEvents.status, 400);
    assert.equal(badEvents.body.attr, 'events');
  });
});
