import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { actorQuery, sortedPeopleIds } from '../support/actors.js';
import { capture, validationError } from '../support/definitions.js';
import { ERRORS, type ApiResponse, TallyServer } from '../support/tally.js';

/**
 * An action or cohort id of another project is, in every endpoint of project 1, exactly an id
 * no project has: the same status, the same body (naming the id that was sent), never the other
 * project's data applied to project 1's events. Project 2 holds an action on `view` and a cohort
 * of persons with `plan` = `pro`, as project 1 does, so a lookup that ignored the project would
 * count project 1's events and persons.
 *
 *   u1  view 2020-01-01 10:00 (plan pro), view 2020-01-02 10:00
 *   u2  view 2020-01-01 11:00
 */
const UNKNOWN = 999_999;
const RANGE = { date_from: '2020-01-01', date_to: '2020-01-02' };
const PERSONS = '/api/projects/1/persons';
const TREND = '/api/projects/1/insights/trend/';
const VIEW_STEPS = [{ event: 'view' }];
const PRO_PLAN = { filters: { properties: { type: 'AND', values: [{ key: 'plan', value: 'pro', type: 'person', operator: 'exact' }] } } };

describe('ids of another project', () => {
  let server: TallyServer;
  const own = { action: 0, cohort: 0 };
  const foreign = { action: 0, cohort: 0 };

  before(async () => {
    server = new TallyServer(undefined, { TALLY_PROJECT_TOKEN: 'phc_foreign_ids' });
    const second = server.createProject('Second');
    server.personalApiKey = server.createKey('*');
    await server.start();
    await capture(server, 'phc_foreign_ids', [
      { event: 'view', distinct_id: 'u1', timestamp: '2020-01-01T10:00:00Z', properties: { $set: { plan: 'pro' } } },
      { event: 'view', distinct_id: 'u1', timestamp: '2020-01-02T10:00:00Z' },
      { event: 'view', distinct_id: 'u2', timestamp: '2020-01-01T11:00:00Z' },
    ]);
    const created = async (path: string, body: Record<string, unknown>) => {
      const response = await server.post(path, body);
      assert.equal(response.status, 201, response.text);
      return response.body.id as number;
    };
    foreign.action = await created(`/api/projects/${second.id}/actions/`, { name: 'Views', steps: VIEW_STEPS });
    foreign.cohort = await created(`/api/projects/${second.id}/cohorts/`, { name: 'Pro', ...PRO_PLAN });
    own.action = await created('/api/projects/1/actions/', { name: 'Views', steps: VIEW_STEPS });
    own.cohort = await created('/api/projects/1/cohorts/', { name: 'Pro', ...PRO_PLAN });
  });
  after(() => server.dispose());

  /** The answer without what changes between calls (refresh time, the `initial` url naming the id). */
  function comparable(response: ApiResponse) {
    const { last_refresh: _refresh, initial: _initial, ...body } = typeof response.body === 'object' ? response.body : { text: response.body };
    return { status: response.status, body };
  }

  /** Asserts an own id is answered from project 1's data, and that an unknown and a foreign id get `expected(id)`. */
  async function sameAsUnknown(
    request: (id: number) => Promise<ApiResponse>,
    kind: 'action' | 'cohort',
    expected: (id: number) => { status: number; body: unknown },
    ownIsAnswered: (response: ApiResponse) => void,
  ) {
    ownIsAnswered(await request(own[kind]));
    assert.deepEqual(comparable(await request(UNKNOWN)), expected(UNKNOWN), `unknown ${kind}`);
    assert.deepEqual(comparable(await request(foreign[kind])), expected(foreign[kind]), `${kind} of another project`);
  }

  const actionSeries = (id: number) => [{ id, type: 'actions', order: 0 }];
  const inCohort = (id: number) => [{ key: 'id', type: 'cohort', value: id }];
  const noPeople = () => ({ status: 200, body: { results: [{ people: [], count: 0 }], next: null, missing_persons: 0, is_cached: false } });
  const invalid = (attr: string, detail: (id: number) => string) => (id: number) => ({ status: 400, body: validationError(attr, detail(id)) });
  const noAction = (attr: string) => invalid(attr, (id) => `Action ${id} does not exist.`);
  const noCohort = (attr: string) => invalid(attr, (id) => `Cohort ${id} does not exist.`);
  const peopleAre = (ids: string[]) => (response: ApiResponse) => assert.deepEqual(sortedPeopleIds(response), ids);

  test('a trend series of an action answers an empty result, as for an action no project has', async () => {
    await sameAsUnknown(
      (id) => server.post(TREND, { actions: actionSeries(id), ...RANGE }),
      'action',
      () => ({ status: 200, body: { result: [], is_cached: false, timezone: 'UTC', next: null } }),
      (response) => assert.deepEqual(response.body.result[0].data, [2, 1]),
    );
  });

  test('actors endpoints taking actions: empty where the trend is empty, 400 on the field elsewhere', async () => {
    const actors = (path: string, params: Record<string, unknown>) => server.get(`${PERSONS}/${path}/?${actorQuery(params)}`);
    await sameAsUnknown(
      (id) => actors('trends', { actions: actionSeries(id), entity_id: id, entity_type: 'actions', ...RANGE }),
      'action',
      noPeople,
      peopleAre(['u1', 'u2']),
    );
    await sameAsUnknown(
      (id) => actors('stickiness', { actions: actionSeries(id), entity_id: id, entity_type: 'actions', stickiness_days: 1, ...RANGE }),
      'action',
      noPeople,
      peopleAre(['u2']),
    );
    await sameAsUnknown(
      (id) => actors('lifecycle', { actions: actionSeries(id), target_date: '2020-01-01', lifecycle_type: 'new', shown_as: 'Lifecycle', ...RANGE }),
      'action',
      noPeople,
      peopleAre(['u1', 'u2']),
    );
    await sameAsUnknown(
      (id) => actors('funnel', { actions: actionSeries(id), events: [{ id: 'view', order: 1 }], funnel_step: 2, ...RANGE }),
      'action',
      noAction('actions'),
      peopleAre(['u1']),
    );
    await sameAsUnknown(
      (id) =>
        actors('funnel/correlation', {
          events: [
            { id: 'view', order: 0 },
            { id: 'view', order: 1 },
          ],
          funnel_correlation_person_entity: { id, type: 'actions' },
          ...RANGE,
        }),
      'action',
      noAction('funnel_correlation_person_entity'),
      (response) => assert.equal(response.status, 200, response.text),
    );
    await sameAsUnknown(
      (id) => actors('retention', { target_entity: { id, type: 'actions' }, date_to: '2020-01-02', total_intervals: 2, period: 'Day', selected_interval: 0 }),
      'action',
      noAction('target_entity'),
      (response) => assert.deepEqual(response.body.result.map((row: any) => row.person.distinct_ids[0]).sort(), ['u1', 'u2']),
    );
  });

  test('the properties timeline counts no events of an action it does not have', async () => {
    const u1 = (await server.get(`${PERSONS}/?distinct_id=u1`)).body.results[0].id;
    await sameAsUnknown(
      (id) => server.get(`${PERSONS}/${u1}/properties_timeline/?${actorQuery({ actions: actionSeries(id), ...RANGE })}`),
      'action',
      () => ({
        status: 200,
        body: {
          points: [],
          crucial_property_keys: [],
          effective_date_from: '2020-01-01T00:00:00+00:00',
          effective_date_to: '2020-01-02T23:59:59.999999+00:00',
        },
      }),
      (response) =>
        assert.deepEqual(
          response.body.points.map((point: any) => point.relevant_event_count),
          [2],
        ),
    );
  });

  test('cohort filters, cohort breakdowns and cohort definitions reject a cohort the project does not have', async () => {
    await sameAsUnknown(
      (id) => server.post(TREND, { events: [{ id: 'view' }], properties: inCohort(id), ...RANGE }),
      'cohort',
      noCohort('properties'),
      (response) => assert.deepEqual(response.body.result[0].data, [1, 1]),
    );
    await sameAsUnknown(
      (id) => server.post(TREND, { events: [{ id: 'view' }], breakdown: [id], breakdown_type: 'cohort', ...RANGE }),
      'cohort',
      noCohort('breakdown'),
      (response) =>
        assert.deepEqual(
          response.body.result.map((item: any) => [item.label, item.data]),
          [['Pro', [1, 1]]],
        ),
    );
    await sameAsUnknown(
      (id) => server.get(`${PERSONS}/?properties=${encodeURIComponent(JSON.stringify(inCohort(id)))}`),
      'cohort',
      noCohort('properties'),
      (response) =>
        assert.deepEqual(
          response.body.results.map((person: any) => person.distinct_ids[0]),
          ['u1'],
        ),
    );
    await sameAsUnknown(
      (id) =>
        server.get(
          `${PERSONS}/trends/?${actorQuery({ events: [{ id: 'view', order: 0 }], entity_id: 'view', entity_type: 'events', properties: inCohort(id), ...RANGE })}`,
        ),
      'cohort',
      noCohort('properties'),
      peopleAre(['u1']),
    );
    await sameAsUnknown(
      (id) => server.post('/api/projects/1/cohorts/', { name: 'Nested', filters: { properties: { type: 'AND', values: inCohort(id) } } }),
      'cohort',
      invalid('filters', () => 'Invalid Cohort ID in filter'),
      (response) => assert.equal(response.status, 201, response.text),
    );
    await sameAsUnknown(
      (id) =>
        server.post('/api/projects/1/cohorts/', {
          name: 'Viewers',
          filters: {
            properties: {
              type: 'AND',
              values: [{ key: id, type: 'behavioral', value: 'performed_event', event_type: 'actions', time_value: 30, time_interval: 'day' }],
            },
          },
        }),
      'action',
      noAction('filters'),
      (response) => assert.equal(response.status, 201, response.text),
    );
  });

  test('an action or cohort of another project is not found by id', async () => {
    const notFound = () => ({ status: 404, body: ERRORS.notFound });
    await sameAsUnknown(
      (id) => server.get(`/api/projects/1/actions/${id}/`),
      'action',
      notFound,
      (response) => assert.equal(response.body.name, 'Views'),
    );
    await sameAsUnknown(
      (id) => server.get(`/api/projects/1/cohorts/${id}/`),
      'cohort',
      notFound,
      (response) => assert.equal(response.body.name, 'Pro'),
    );
    await sameAsUnknown(
      (id) => server.get(`/api/projects/1/cohorts/${id}/persons/`),
      'cohort',
      notFound,
      (response) =>
        assert.deepEqual(
          response.body.results.map((person: any) => person.distinct_ids[0]),
          ['u1'],
        ),
    );
  });
});
