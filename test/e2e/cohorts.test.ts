import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sendBatch } from '../support/capture.js';
import { COHORTS, createCohort, definedBy, memberIds } from '../support/cohorts.js';
import { personOf, startWithKeys, validationError } from '../support/persons.js';
import type { TallyServer } from '../support/tally.js';

const person = (key: string, value: unknown, operator = 'exact', negation = false) => ({ type: 'person', key, value, operator, negation });
const cohortRef = (id: number, negation = false) => ({ type: 'cohort', key: 'id', value: id, negation });

/** Cohorts over persons created by real captures: CRUD, person filters, nesting, negation, static members, errors. */
describe('cohorts API', () => {
  let server: TallyServer;
  let keys: Record<string, string>;

  before(async () => {
    ({ server, keys } = await startWithKeys({ readOnly: 'cohort:read', personsOnly: 'person:read' }));
    await sendBatch(server, [
      { event: '$identify', distinct_id: 'alice', properties: { $set: { email: 'alice@example.com', plan: 'pro', age: 31 } } },
      { event: '$identify', distinct_id: 'bob', properties: { $set: { email: 'bob@corp.io', plan: 'free', age: 25 } } },
      { event: '$identify', distinct_id: 'carol', properties: { $set: { email: 'carol@example.com', plan: 'free', age: 41 } } },
      { event: 'seen', distinct_id: 'dave' },
    ]);
  });
  after(() => server.dispose());

  test('create, retrieve, list, PATCH and DELETE; ids are never reused', async () => {
    const created = await createCohort(server, { name: 'Pro', description: 'paying', ...definedBy(person('plan', 'pro')) });
    assert.equal(created.name, 'Pro');
    assert.equal(created.description, 'paying');
    assert.equal(created.is_static, false);
    assert.equal(created.deleted, false);
    assert.equal(created.count, 1);
    assert.equal(created.cohort_type, 'person_property');
    assert.deepEqual(created.filters, definedBy(person('plan', 'pro')).filters);
    assert.equal(typeof created.id, 'number');

    const fetched = await server.get(`${COHORTS}/${created.id}/`);
    assert.equal(fetched.status, 200);
    assert.equal(fetched.body.name, 'Pro');

    const patched = await server.patch(`${COHORTS}/${created.id}/`, { name: 'Free', ...definedBy(person('plan', 'free')) });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.body.name, 'Free');
    assert.equal(patched.body.count, 2);

    const listed = await server.get(`${COHORTS}/`);
    assert.ok(listed.body.results.some((cohort: any) => cohort.id === created.id));

    const deleted = await server.delete(`${COHORTS}/${created.id}/`);
    assert.equal(deleted.status, 204);
    assert.equal((await server.get(`${COHORTS}/${created.id}/`)).status, 404);
    assert.ok(!(await server.get(`${COHORTS}/`)).body.results.some((cohort: any) => cohort.id === created.id));

    const softDeleted = await createCohort(server, { name: 'Soft', ...definedBy(person('plan', 'pro')) });
    assert.ok(softDeleted.id > created.id);
    assert.equal((await server.patch(`${COHORTS}/${softDeleted.id}/`, { deleted: true })).status, 200);
    assert.equal((await server.get(`${COHORTS}/${softDeleted.id}/`)).status, 404);
    const next = await createCohort(server, { name: 'Next', ...definedBy(person('plan', 'pro')) });
    assert.ok(next.id > softDeleted.id);
  });

  test('person-property operators, OR groups and the persons endpoint', async () => {
    const adults = await createCohort(server, { name: 'Over 30', ...definedBy(person('age', 30, 'gt')) });
    assert.deepEqual(await memberIds(server, adults.id), ['alice', 'carol']);
    const example = await createCohort(server, { name: 'Example', ...definedBy(person('email', 'EXAMPLE.com', 'icontains')) });
    assert.deepEqual(await memberIds(server, example.id), ['alice', 'carol']);
    const noEmail = await createCohort(server, { name: 'No email', ...definedBy(person('email', null, 'is_not_set')) });
    assert.deepEqual(await memberIds(server, noEmail.id), ['dave']);
    const either = await createCohort(server, {
      name: 'Pro or young',
      filters: {
        properties: {
          type: 'OR',
          values: [
            { type: 'AND', values: [person('plan', 'pro')] },
            { type: 'AND', values: [person('age', 30, 'lt')] },
          ],
        },
      },
    });
    assert.deepEqual(await memberIds(server, either.id), ['alice', 'bob']);

    const page = await server.get(`${COHORTS}/${adults.id}/persons/?limit=1`);
    assert.equal(page.body.count, 2);
    assert.equal(page.body.results.length, 1);
    assert.deepEqual(Object.keys(page.body.results[0]), ['id', 'name', 'distinct_ids', 'properties', 'created_at', 'uuid', 'is_identified']);
    assert.match(page.body.next, /limit=1&offset=1/);
  });

  test('membership changes the moment a person property changes', async () => {
    const enterprise = await createCohort(server, { name: 'Enterprise', ...definedBy(person('plan', 'enterprise')) });
    assert.deepEqual(await memberIds(server, enterprise.id), []);
    await sendBatch(server, [{ event: '$set', distinct_id: 'bob', properties: { $set: { plan: 'enterprise' } } }]);
    assert.deepEqual(await memberIds(server, enterprise.id), ['bob']);
    assert.equal((await server.get(`${COHORTS}/${enterprise.id}/`)).body.count, 1);
    await sendBatch(server, [{ event: '$set', distinct_id: 'bob', properties: { $set: { plan: 'free' } } }]);
    assert.deepEqual(await memberIds(server, enterprise.id), []);
  });

  test('nested and negated cohorts', async () => {
    const example = await createCohort(server, { name: 'Example domain', ...definedBy(person('email', 'example.com', 'icontains')) });
    const nested = await createCohort(server, { name: 'Example and over 35', ...definedBy(cohortRef(example.id), person('age', 35, 'gt')) });
    assert.deepEqual(await memberIds(server, nested.id), ['carol']);
    const outside = await createCohort(server, { name: 'Not example', ...definedBy(person('age', 0, 'gt'), cohortRef(example.id, true)) });
    assert.deepEqual(await memberIds(server, outside.id), ['bob']);
    const notNested = await createCohort(server, { name: 'Not (example and over 35)', ...definedBy(cohortRef(nested.id, true)) });
    assert.deepEqual(await memberIds(server, notNested.id), ['alice', 'bob', 'dave']);
    const negatedPerson = await createCohort(server, { name: 'Not pro', ...definedBy(person('plan', 'pro', 'exact', true)) });
    assert.deepEqual(await memberIds(server, negatedPerson.id), ['bob', 'carol', 'dave']);
  });

  test('legacy groups are accepted and OR-ed', async () => {
    const legacy = await createCohort(server, {
      name: 'Legacy',
      groups: [{ properties: [{ key: 'plan', value: 'pro', type: 'person' }] }, { properties: [{ key: 'age', value: 41, type: 'person' }] }],
    });
    assert.deepEqual(await memberIds(server, legacy.id), ['alice', 'carol']);
    assert.deepEqual(legacy.groups, [
      { properties: [{ key: 'plan', value: 'pro', type: 'person' }] },
      { properties: [{ key: 'age', value: 41, type: 'person' }] },
    ]);
  });

  test('static cohorts: add_persons_to_static_cohort and CSV upload', async () => {
    const alice = await personOf(server, 'alice');
    const carol = await personOf(server, 'carol');
    const fixed = await createCohort(server, { name: 'Hand picked', is_static: true });
    assert.equal(fixed.is_static, true);
    assert.equal(fixed.cohort_type, 'static');
    const added = await server.patch(`${COHORTS}/${fixed.id}/add_persons_to_static_cohort/`, { person_ids: [alice.uuid, carol.uuid] });
    assert.equal(added.status, 200, added.text);
    assert.deepEqual(added.body, { success: true });
    assert.deepEqual(await memberIds(server, fixed.id), ['alice', 'carol']);
    // Static membership does not follow property changes.
    await sendBatch(server, [{ event: '$set', distinct_id: 'alice', properties: { $set: { plan: 'churned' } } }]);
    assert.deepEqual(await memberIds(server, fixed.id), ['alice', 'carol']);
    const nestsStatic = await createCohort(server, { name: 'Static and free', ...definedBy(cohortRef(fixed.id), person('plan', 'free')) });
    assert.deepEqual(await memberIds(server, nestsStatic.id), ['carol']);

    const form = new FormData();
    form.append('name', 'From CSV');
    form.append('is_static', 'true');
    form.append('csv', new Blob(['bob\ndave\nnobody\n'], { type: 'text/csv' }), 'people.csv');
    const uploaded = await fetch(`${server.url}${COHORTS}/`, { method: 'POST', body: form, headers: { authorization: `Bearer ${server.personalApiKey}` } });
    const body = (await uploaded.json()) as any;
    assert.equal(uploaded.status, 201, JSON.stringify(body));
    assert.equal(body.count, 2);
    assert.deepEqual(await memberIds(server, body.id), ['bob', 'dave']);

    const more = new FormData();
    more.append('csv', new Blob(['alice\n'], { type: 'text/csv' }), 'more.csv');
    const patched = await fetch(`${server.url}${COHORTS}/${body.id}/`, {
      method: 'PATCH',
      body: more,
      headers: { authorization: `Bearer ${server.personalApiKey}` },
    });
    assert.equal(patched.status, 200);
    assert.deepEqual(await memberIds(server, body.id), ['alice', 'bob', 'dave']);

    const notStatic = await createCohort(server, { name: 'Dynamic', ...definedBy(person('plan', 'pro')) });
    const refused = await server.patch(`${COHORTS}/${notStatic.id}/add_persons_to_static_cohort/`, { person_ids: [alice.uuid] });
    assert.equal(refused.status, 400);
    assert.deepEqual(refused.body, validationError('Can only add users to static cohorts'));
    const empty = await server.patch(`${COHORTS}/${fixed.id}/add_persons_to_static_cohort/`, { person_ids: [] });
    assert.deepEqual(empty.body, validationError('person_ids cannot be empty', 'person_ids'));
    const unknown = await server.patch(`${COHORTS}/${fixed.id}/add_persons_to_static_cohort/`, { person_ids: ['00000000-0000-0000-0000-000000000000'] });
    assert.deepEqual(unknown.body, validationError('No valid users to add to cohort', 'person_ids'));
  });

  test('cohorts as trend property filters and breakdowns; an unknown cohort is a 400', async () => {
    await sendBatch(server, [
      { event: 'purchase', distinct_id: 'alice' },
      { event: 'purchase', distinct_id: 'bob' },
      { event: 'purchase', distinct_id: 'bob' },
      { event: 'purchase', distinct_id: 'carol' },
    ]);
    const young = await createCohort(server, { name: 'Young', ...definedBy(person('age', 30, 'lt')) });
    const trend = await server.post('/api/projects/1/insights/trend/', {
      events: [{ id: 'purchase' }],
      date_from: '-1d',
      display: 'ActionsTable',
      properties: [{ key: 'id', type: 'cohort', value: young.id }],
    });
    assert.equal(trend.status, 200, trend.text);
    assert.equal(trend.body.result[0].aggregated_value, 2);

    const negated = await server.post('/api/projects/1/insights/trend/', {
      events: [{ id: 'purchase' }],
      date_from: '-1d',
      display: 'ActionsTable',
      properties: [{ key: 'id', type: 'cohort', value: young.id, negation: true }],
    });
    assert.equal(negated.body.result[0].aggregated_value, 2);

    const broken = await server.post('/api/projects/1/insights/trend/', {
      events: [{ id: 'purchase' }],
      date_from: '-1d',
      display: 'ActionsTable',
      breakdown_type: 'cohort',
      breakdown: [young.id, 'all'],
    });
    assert.equal(broken.status, 200, broken.text);
    assert.deepEqual(
      broken.body.result.map((series: any) => [series.breakdown_value, series.label, series.aggregated_value]),
      [
        [young.id, 'Young', 2],
        ['all', 'all users', 4],
      ],
    );

    const unknown = await server.post('/api/projects/1/insights/trend/', {
      events: [{ id: 'purchase' }],
      properties: [{ key: 'id', type: 'cohort', value: 999_999 }],
    });
    assert.equal(unknown.status, 400);
    assert.deepEqual(unknown.body, validationError('Cohort 999999 does not exist.', 'properties'));
  });

  test('malformed filters, unknown nested cohorts and loops are 400s', async () => {
    const noProperties = await server.post(`${COHORTS}/`, { name: 'Bad', filters: { values: [] } });
    assert.equal(noProperties.status, 400);
    assert.deepEqual(noProperties.body, validationError("Must contain a 'properties' key with type and values", 'filters'));
    const noValue = await server.post(`${COHORTS}/`, { name: 'Bad', ...definedBy({ type: 'person', key: 'plan', operator: 'exact' }) });
    assert.deepEqual(noValue.body, validationError('Missing required keys for person filter: value', 'filters'));
    const badBehaviour = await server.post(`${COHORTS}/`, {
      name: 'Bad',
      ...definedBy({ type: 'behavioral', key: 'seen', event_type: 'events', value: 'performed_event', time_value: 0, time_interval: 'day' }),
    });
    assert.deepEqual(badBehaviour.body, validationError('time_value must be a positive integer.', 'filters'));
    const unknownType = await server.post(`${COHORTS}/`, { name: 'Bad', ...definedBy({ type: 'event', key: 'x', value: 1 }) });
    assert.deepEqual(unknownType.body, validationError('Invalid property type for cohort filters: "event".', 'filters'));
    const unknownNested = await server.post(`${COHORTS}/`, { name: 'Bad', ...definedBy(cohortRef(999_999)) });
    assert.deepEqual(unknownNested.body, validationError('Invalid Cohort ID in filter', 'filters'));

    const a = await createCohort(server, { name: 'A', ...definedBy(person('plan', 'pro')) });
    const b = await createCohort(server, { name: 'B', ...definedBy(cohortRef(a.id)) });
    const c = await createCohort(server, { name: 'C', ...definedBy(cohortRef(b.id)) });
    const loop = await server.patch(`${COHORTS}/${a.id}/`, definedBy(cohortRef(c.id)));
    assert.equal(loop.status, 400);
    assert.deepEqual(loop.body, validationError('Cohorts cannot reference other cohorts in a loop.'));
    const self = await server.patch(`${COHORTS}/${a.id}/`, definedBy(cohortRef(a.id)));
    assert.deepEqual(self.body, validationError('Cohorts cannot reference other cohorts in a loop.'));
    assert.deepEqual((await server.get(`${COHORTS}/${a.id}/`)).body.filters, definedBy(person('plan', 'pro')).filters);
  });

  test('scopes: cohort:read lists but cannot write; other scopes are refused', async () => {
    assert.equal((await server.get(`${COHORTS}/`, { key: keys.readOnly })).status, 200);
    const write = await server.post(`${COHORTS}/`, { name: 'x' }, { key: keys.readOnly });
    assert.equal(write.status, 403);
    assert.deepEqual(write.body, {
      type: 'authentication_error',
      code: 'permission_denied',
      detail: "API key missing required scope 'cohort:write'",
      attr: null,
    });
    const other = await server.get(`${COHORTS}/`, { key: keys.personsOnly });
    assert.equal(other.status, 403);
  });
});
