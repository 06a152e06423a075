import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startServerWithTwoProjects, validationError } from '../support/definitions.js';
import { ERRORS, type TallyServer } from '../support/tally.js';

const BASE = '/api/projects/1/annotations';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Annotations over HTTP: CRUD, scopes (organization-wide ones in every project), filters, soft delete. */
describe('annotations API', () => {
  let server: TallyServer;
  let secondProjectId: number;
  let readKey: string;
  let writeKey: string;
  let otherScopeKey: string;
  let creator: Record<string, unknown>;

  const create = (body: Record<string, unknown>, projectId = 1) => server.bodyOf('POST', `/api/projects/${projectId}/annotations/`, 201, { body });
  const get = (path: string) => server.bodyOf('GET', path);
  const make = (kind: 'insights' | 'dashboards', body: Record<string, unknown>, projectId = 1) =>
    server.bodyOf('POST', `/api/projects/${projectId}/${kind}/`, 201, { body });
  const contents = (body: { results: Array<{ content: string }> }) => body.results.map((annotation) => annotation.content);

  before(async () => {
    const started = await startServerWithTwoProjects(['annotation:read', 'annotation:write', 'insight:read']);
    server = started.server;
    secondProjectId = started.secondProject.id;
    readKey = started.scopedKeys.get('annotation:read')!;
    writeKey = started.scopedKeys.get('annotation:write')!;
    otherScopeKey = started.scopedKeys.get('insight:read')!;
    creator = (await make('dashboards', { name: 'probe' })).created_by;
  });
  after(() => server.dispose());

  test('create answers the record; the scope follows what is attached', async () => {
    const plain = await create({ content: 'Launched v2', date_marker: '2024-03-01T12:30:00+01:00' });
    assert.match(plain.created_at, ISO);
    assert.deepEqual(plain, {
      id: plain.id,
      content: 'Launched v2',
      date_marker: '2024-03-01T11:30:00.000Z',
      creation_type: 'USR',
      dashboard_item: null,
      dashboard_id: null,
      dashboard_name: null,
      insight_short_id: null,
      insight_name: null,
      insight_derived_name: null,
      created_by: creator,
      created_at: plain.created_at,
      updated_at: plain.created_at,
      deleted: false,
      scope: 'project',
    });
    assert.deepEqual(await get(`${BASE}/${plain.id}`), plain);
    assert.deepEqual(await get(`/api/environments/1/annotations/${plain.id}/`), plain);

    const insight = await make('insights', { name: 'Signups', derived_name: 'Signup count' });
    const onInsight = await create({ content: 'On the insight', dashboard_item: insight.id, creation_type: 'GIT' });
    assert.deepEqual(
      [onInsight.scope, onInsight.dashboard_item, onInsight.insight_short_id, onInsight.insight_name, onInsight.insight_derived_name, onInsight.creation_type],
      ['dashboard_item', insight.id, insight.short_id, 'Signups', 'Signup count', 'GIT'],
    );
    const dashboard = await make('dashboards', { name: 'Ops' });
    const onDashboard = await create({ content: 'On the dashboard', dashboard_id: dashboard.id });
    assert.deepEqual([onDashboard.scope, onDashboard.dashboard_id, onDashboard.dashboard_name], ['dashboard', dashboard.id, 'Ops']);
    const aliased = await create({ content: 'Insight alias', scope: 'insight', dashboard_item: insight.id });
    assert.equal(aliased.scope, 'dashboard_item');
    const noDate = await create({ content: 'Undated', scope: 'project' });
    assert.equal(noDate.date_marker, null);
  });

  test('organization-scoped annotations show in every project of the organization; project ones only in theirs', async () => {
    const shared = await create({ content: 'Org-wide outage', scope: 'organization', date_marker: '2030-01-01' }, secondProjectId);
    const own = await create({ content: 'Second only', date_marker: '2030-01-02' }, secondProjectId);
    const listed = contents(await get(`${BASE}/?date_from=2030-01-01`));
    assert.deepEqual(listed, ['Org-wide outage']);
    assert.equal((await get(`${BASE}/${shared.id}/`)).content, 'Org-wide outage');
    assert.equal((await server.get(`${BASE}/${own.id}/`)).status, 404);
    assert.deepEqual((await server.patch(`${BASE}/${own.id}/`, { content: 'Taken' })).body, ERRORS.notFound);
    assert.deepEqual(contents(await get(`/api/projects/${secondProjectId}/annotations/?date_from=2030-01-01`)), ['Second only', 'Org-wide outage']);
  });

  test('list: latest date_marker first (undated first), filters scope, search, date_from/date_to; default limit 1000', async () => {
    const marker = `m${Date.now()}`;
    await create({ content: `${marker} early release`, date_marker: '2021-01-01T00:00:00Z' });
    await create({ content: `${marker} late release`, date_marker: '2021-01-03T00:00:00Z' });
    await create({ content: `${marker} middle incident`, date_marker: '2021-01-02T00:00:00Z', scope: 'organization' });
    await create({ content: `${marker} undated` });
    const search = (query: string) => get(`${BASE}/?search=${marker}${query}`);
    assert.deepEqual(contents(await search('')), [`${marker} undated`, `${marker} late release`, `${marker} middle incident`, `${marker} early release`]);
    assert.deepEqual(contents(await search('%20RELEASE')), [`${marker} late release`, `${marker} early release`], 'every word, any case');
    assert.deepEqual(contents(await search('&scope=organization')), [`${marker} middle incident`]);
    assert.deepEqual(contents(await search('&date_from=2021-01-02&date_to=2021-01-03T00:00:00Z')), [`${marker} late release`, `${marker} middle incident`]);
    assert.deepEqual(contents(await search('&date_to=2021-01-01')), [`${marker} early release`], 'inclusive');

    const page = await search('&offset=1');
    assert.equal(page.count, 4);
    assert.equal(page.results.length, 3);
    assert.equal(page.next, null);
    assert.equal(page.previous, `${server.url}${BASE}/?search=${marker}&offset=0&limit=1000`, 'a page of 1000 by default');
    const small = await search('&limit=1');
    assert.equal(small.next, `${server.url}${BASE}/?search=${marker}&limit=1&offset=1`);

    for (const [query, error] of [
      ['scope=recording', validationError('scope', 'Recording scope is deprecated', 'invalid_choice')],
      ['scope=everywhere', validationError('scope', '"everywhere" is not a valid choice.', 'invalid_choice')],
      ['date_from=last%20week', validationError('date_from', '"last week" is not an ISO 8601 date or date-time, such as 2024-01-31T12:00:00Z.', 'invalid')],
      ['date_to=-7d', validationError('date_to', '"-7d" is not an ISO 8601 date or date-time, such as 2024-01-31T12:00:00Z.', 'invalid')],
      ['date_from=2021-02-01&date_to=2021-01-01', validationError('date_from', 'Invalid date range: date_from must be before date_to')],
    ] as const) {
      const response = await server.get(`${BASE}/?${query}`);
      assert.equal(response.status, 400, query);
      assert.deepEqual(response.body, error, query);
    }
  });

  test('PATCH changes fields; bad input and foreign or unknown insights and dashboards are 400s naming the field', async () => {
    const annotation = await create({ content: 'Draft', date_marker: '2022-05-05' });
    const changed = await server.patch(`${BASE}/${annotation.id}/`, { content: 'Final', date_marker: '2022-05-06T08:00:00Z', scope: 'organization' });
    assert.equal(changed.status, 200, changed.text);
    assert.deepEqual([changed.body.content, changed.body.date_marker, changed.body.scope], ['Final', '2022-05-06T08:00:00.000Z', 'organization']);
    assert.ok(changed.body.updated_at >= annotation.updated_at);
    const cleared = await server.patch(`${BASE}/${annotation.id}/`, { content: null });
    assert.equal(cleared.status, 200, cleared.text);
    assert.equal(cleared.body.content, null, 'null stays null, not an empty string');
    assert.equal((await server.patch(`${BASE}/${annotation.id}/`, { content: 'Final' })).status, 200);

    const foreignInsight = await make('insights', { name: 'Elsewhere' }, secondProjectId);
    const foreignDashboard = await make('dashboards', { name: 'Elsewhere' }, secondProjectId);
    const cases: Array<[Record<string, unknown>, ReturnType<typeof validationError>]> = [
      [{ content: 'x'.repeat(401) }, validationError('content', 'Ensure this field has no more than 400 characters.', 'max_length')],
      [{ creation_type: 'BOT' }, validationError('creation_type', '"BOT" is not a valid choice.', 'invalid_choice')],
      [{ scope: 'recording' }, validationError('scope', 'Recording scope is deprecated', 'invalid_choice')],
      [{ scope: 'team' }, validationError('scope', '"team" is not a valid choice.', 'invalid_choice')],
      [
        { date_marker: 'tomorrow' },
        validationError('date_marker', '"tomorrow" is not an ISO 8601 date or date-time, such as 2024-01-31T12:00:00Z.', 'invalid'),
      ],
      [
        { dashboard_item: foreignInsight.id },
        validationError('dashboard_item', `Invalid pk "${foreignInsight.id}" - object does not exist.`, 'does_not_exist'),
      ],
      [{ dashboard_item: 987654 }, validationError('dashboard_item', 'Invalid pk "987654" - object does not exist.', 'does_not_exist')],
      [{ dashboard_id: foreignDashboard.id }, validationError('dashboard_id', 'Dashboard not found.', 'does_not_exist')],
      [{ deleted: 'yes' }, validationError('deleted', 'Invalid value: must be boolean.')],
    ];
    for (const [body, error] of cases) {
      const created = await server.post(`${BASE}/`, body);
      assert.equal(created.status, 400, JSON.stringify(body));
      assert.deepEqual(created.body, error, JSON.stringify(body));
      const patched = await server.patch(`${BASE}/${annotation.id}/`, body);
      assert.deepEqual(patched.body, error, JSON.stringify(body));
    }
    assert.equal((await get(`${BASE}/${annotation.id}/`)).content, 'Final');
  });

  test('delete is soft: PATCH deleted hides it, PATCH deleted false restores it, DELETE is 405', async () => {
    const annotation = await create({ content: 'Short-lived', date_marker: '2023-01-01' });
    for (const path of [`${BASE}/${annotation.id}/`, `${BASE}/${annotation.id}`, `/api/environments/1/annotations/${annotation.id}/`]) {
      const response = await server.delete(path);
      assert.equal(response.status, 405, path);
      assert.equal(response.body.code, 'method_not_allowed');
    }
    const deleted = await server.patch(`${BASE}/${annotation.id}/`, { deleted: true });
    assert.equal(deleted.status, 200);
    assert.equal(deleted.body.deleted, true);
    assert.equal((await server.get(`${BASE}/${annotation.id}/`)).status, 404);
    assert.equal((await server.patch(`${BASE}/${annotation.id}/`, { content: 'x' })).status, 404);
    assert.deepEqual(contents(await get(`${BASE}/?search=Short-lived`)), []);
    const restored = await server.patch(`${BASE}/${annotation.id}/`, { deleted: false });
    assert.equal(restored.body.deleted, false);
    assert.deepEqual(contents(await get(`${BASE}/?search=Short-lived`)), ['Short-lived']);
  });

  test('an annotation of a deleted insight or dashboard is hidden until it is restored', async () => {
    const insight = await make('insights', { name: 'Temporary' });
    const dashboard = await make('dashboards', { name: 'Temporary' });
    const onInsight = await create({ content: 'hidden-with-insight', dashboard_item: insight.id });
    const onDashboard = await create({ content: 'hidden-with-dashboard', dashboard_id: dashboard.id });
    await server.patch(`/api/projects/1/insights/${insight.id}/`, { deleted: true });
    await server.patch(`/api/projects/1/dashboards/${dashboard.id}/`, { deleted: true });
    assert.deepEqual(contents(await get(`${BASE}/?search=hidden-with`)), []);
    assert.equal((await server.get(`${BASE}/${onInsight.id}/`)).status, 404);
    assert.equal((await server.get(`${BASE}/${onDashboard.id}/`)).status, 404);
    await server.patch(`/api/projects/1/insights/${insight.id}/`, { deleted: false });
    await server.patch(`/api/projects/1/dashboards/${dashboard.id}/`, { deleted: false });
    assert.deepEqual(contents(await get(`${BASE}/?search=hidden-with`)).sort(), ['hidden-with-dashboard', 'hidden-with-insight']);
  });

  test('scopes: annotation:read reads, annotation:write writes and reads, others are 403', async () => {
    const annotation = await create({ content: 'Scoped' });
    assert.deepEqual((await server.get(`${BASE}/`, { key: otherScopeKey })).body, ERRORS.missingScope('annotation:read'));
    assert.deepEqual((await server.get(`${BASE}/${annotation.id}/`, { key: otherScopeKey })).body, ERRORS.missingScope('annotation:read'));
    assert.equal((await server.get(`${BASE}/${annotation.id}/`, { key: readKey })).status, 200);
    assert.equal((await server.get(`${BASE}/`, { key: writeKey })).status, 200);
    const post = await server.post(`${BASE}/`, { content: 'Nope' }, { key: readKey });
    assert.equal(post.status, 403);
    assert.deepEqual(post.body, ERRORS.missingScope('annotation:write'));
    assert.deepEqual((await server.patch(`${BASE}/${annotation.id}/`, { content: 'Nope' }, { key: readKey })).body, ERRORS.missingScope('annotation:write'));
    assert.equal((await server.post(`${BASE}/`, { content: 'Yes' }, { key: writeKey })).status, 201);
  });

  test('unknown ids and ids that are no integers are 404s', async () => {
    for (const path of [`${BASE}/999999/`, `${BASE}/abc/`]) {
      const response = await server.get(path);
      assert.equal(response.status, 404, path);
      assert.deepEqual(response.body, ERRORS.notFound);
    }
  });
});
