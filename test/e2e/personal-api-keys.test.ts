import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { addSecondOrganization } from '../support/accounts.js';
import { UUID_PATTERN } from '../support/definitions.js';
import { ERRORS, TallyServer } from '../support/tally.js';

const SELF_ACCESS_ONLY = ERRORS.permissionDenied('This action does not support Personal API Key access');
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function keyFor(scopes: string, options: { projects?: number[]; label?: string; user?: string }) {
  return [
    'keys',
    'create',
    '--scopes',
    scopes,
    ...(options.projects ? ['--projects', options.projects.join(',')] : []),
    ...(options.label ? ['--label', options.label] : []),
    ...(options.user ? ['--user', options.user] : []),
  ];
}

describe('personal API keys', () => {
  let server: TallyServer;
  let organizationId: string;
  let otherOrganizationId: string;
  let otherProjectId: number;
  let manager: string;
  let insightReader: string;
  let scopedManager: string;
  let colleague: string;
  let outsider: string;

  before(async () => {
    server = new TallyServer();
    server.createProject('Second');
    manager = server.cli(keyFor('*', { label: 'Manager' })).lastLine;
    insightReader = server.cli(keyFor('insight:read', { label: 'Insights' })).lastLine;
    scopedManager = server.cli(keyFor('*', { projects: [2], label: 'Second only' })).lastLine;

    ({ organizationId, otherOrganizationId, otherProjectId } = await addSecondOrganization(server, 'Other organization'));
    colleague = server.cli(keyFor('*', { label: 'Ada', user: 'ada@example.com' })).lastLine;
    outsider = server.cli(keyFor('*', { label: 'Bob', user: 'bob@example.com' })).lastLine;
    await server.start();
    server.personalApiKey = manager;
  });
  after(() => server.dispose());

  async function idOf(key: string): Promise<string> {
    return (await server.get('/api/personal_api_keys/@current/', { key })).body.id;
  }

  test('@current describes the calling key, whatever its scopes or projects', async () => {
    const before = Date.now();
    for (const [key, label, scopes, scopedTeams] of [
      [insightReader, 'Insights', ['insight:read'], []],
      [scopedManager, 'Second only', ['*'], [2]],
      [manager, 'Manager', ['*'], []],
    ] as const) {
      for (const path of ['/api/personal_api_keys/@current/', '/api/personal_api_keys/@current']) {
        const response = await server.get(path, { key });
        assert.equal(response.status, 200, path);
        const body = response.body;
        assert.match(body.id, UUID_PATTERN);
        assert.match(body.created_at, ISO_TIME);
        assert.match(body.last_used_at, ISO_TIME, 'the use the key is making shows');
        assert.ok(Date.parse(body.last_used_at) >= before - 1000);
        assert.deepEqual(body, {
          id: body.id,
          label,
          value: null,
          mask_value: `phx_...${key.slice(-4)}`,
          created_at: body.created_at,
          last_used_at: body.last_used_at,
          user_id: 1,
          scopes,
          scoped_teams: scopedTeams,
          scoped_organizations: [],
          last_rolled_at: null,
        });
        const byId = await server.get(`/api/personal_api_keys/${body.id}`, { key });
        assert.equal(byId.status, 200);
        assert.deepEqual(byId.body, body);
      }
    }
  });

  test('no key or an unknown key is a 401', async () => {
    const none = await server.get('/api/personal_api_keys/@current/', { key: null });
    assert.equal(none.status, 401);
    assert.deepEqual(none.body, ERRORS.notAuthenticated);
    const unknown = await server.get('/api/personal_api_keys/@current/', { key: 'phx_unknown' });
    assert.equal(unknown.status, 401);
    assert.equal(unknown.body.code, 'authentication_failed');
  });

  test("a key reads another key of its user only when it manages keys; other users' keys are not found", async () => {
    const managerId = await idOf(manager);
    const colleagueId = await idOf(colleague);
    const outsiderId = await idOf(outsider);

    const other = await server.get(`/api/personal_api_keys/${managerId}/`, { key: insightReader });
    assert.equal(other.status, 403);
    assert.deepEqual(other.body, SELF_ACCESS_ONLY);
    assert.equal((await server.get(`/api/personal_api_keys/${managerId}/`, { key: scopedManager })).status, 403);

    const managed = await server.get(`/api/personal_api_keys/${await idOf(insightReader)}/`);
    assert.equal(managed.status, 200);
    assert.equal(managed.body.label, 'Insights');
    assert.equal(managed.body.value, null);

    for (const id of [colleagueId, outsiderId, '01a21af8-0000-7000-8000-000000000000', 'not-a-key']) {
      for (const key of [manager, insightReader]) {
        const response = await server.get(`/api/personal_api_keys/${id}/`, { key });
        assert.equal(response.status, 404, id);
        assert.deepEqual(response.body, ERRORS.notFound);
      }
    }
  });

  test("the list holds the user's keys, newest first, without values, for a managing key only", async () => {
    for (const path of ['/api/personal_api_keys/', '/api/personal_api_keys']) {
      const response = await server.get(path);
      assert.equal(response.status, 200);
      assert.ok(Array.isArray(response.body));
      assert.deepEqual(
        response.body.map((key: { label: string }) => key.label).filter((label: string) => label !== 'Created'),
        ['Second only', 'Insights', 'Manager', 'Bootstrap key'],
      );
      assert.ok(response.body.every((key: { value: unknown; user_id: number }) => key.value === null && key.user_id === 1));
      const times = response.body.map((key: { created_at: string }) => key.created_at);
      assert.deepEqual(times, [...times].sort().reverse());
    }
    const colleagues = await server.get('/api/personal_api_keys/', { key: colleague });
    assert.deepEqual(
      colleagues.body.map((key: { label: string }) => key.label),
      ['Ada'],
    );
    for (const key of [insightReader, scopedManager]) {
      const response = await server.get('/api/personal_api_keys/', { key });
      assert.equal(response.status, 403);
      assert.deepEqual(response.body, SELF_ACCESS_ONLY);
    }
  });

  test('create answers 201 with the value once; the new key works with its scopes and projects', async () => {
    const response = await server.post('/api/personal_api_keys/', { label: 'Created', scopes: ['project:read'], scoped_teams: [2] });
    assert.equal(response.status, 201);
    const created = response.body;
    assert.match(created.value, /^phx_[0-9A-Za-z]{47}$/);
    assert.match(created.id, UUID_PATTERN);
    assert.match(created.created_at, ISO_TIME);
    assert.deepEqual(created, {
      id: created.id,
      label: 'Created',
      value: created.value,
      mask_value: `phx_...${created.value.slice(-4)}`,
      created_at: created.created_at,
      last_used_at: null,
      user_id: 1,
      scopes: ['project:read'],
      scoped_teams: [2],
      scoped_organizations: [],
      last_rolled_at: null,
    });

    const second = await server.get('/api/projects/2/', { key: created.value });
    assert.equal(second.status, 200);
    assert.equal(second.body.name, 'Second');
    const first = await server.get('/api/projects/1/', { key: created.value });
    assert.equal(first.status, 403);
    assert.deepEqual(first.body, ERRORS.permissionDenied('API key does not have access to the requested project: ID 1.'));
    const current = await server.get('/api/personal_api_keys/@current', { key: created.value });
    assert.deepEqual({ ...current.body, last_used_at: null }, { ...created, value: null });

    const listed = await server.get('/api/personal_api_keys/');
    assert.equal(listed.body[0].id, created.id);
    assert.equal(listed.body[0].value, null);
    assert.equal((await server.get(`/api/personal_api_keys/${created.id}/`)).body.value, null);
  });

  test('create takes a 40-character label, scope lists and the organization', async () => {
    const response = await server.post('/api/personal_api_keys', {
      label: `  ${'x'.repeat(40)} `,
      scopes: ['insight:read', 'insight:read', 'person:write'],
      scoped_teams: [],
      scoped_organizations: [organizationId.toUpperCase()],
    });
    assert.equal(response.status, 201);
    assert.equal(response.body.label, 'x'.repeat(40));
    assert.deepEqual(response.body.scopes, ['insight:read', 'person:write']);
    assert.deepEqual(response.body.scoped_teams, []);
    assert.deepEqual(response.body.scoped_organizations, [organizationId]);
    const persons = await server.get('/api/projects/1/persons/', { key: response.body.value });
    assert.equal(persons.status, 200);
    const nulls = await server.post('/api/personal_api_keys/', { label: 'Nulls', scopes: ['*'], scoped_teams: null, scoped_organizations: null });
    assert.equal(nulls.status, 201);
    assert.deepEqual([nulls.body.scoped_teams, nulls.body.scoped_organizations], [[], []]);
    await server.delete(`/api/personal_api_keys/${response.body.id}/`);
    await server.delete(`/api/personal_api_keys/${nulls.body.id}/`);
  });

  test('bad input is a 400 naming the field, and creates nothing', async () => {
    const count = (await server.get('/api/personal_api_keys/')).body.length;
    const notMember = 'You must be a member of all teams that you are scoping the key to.';
    const cases: [unknown, string, string, string][] = [
      [{ scopes: ['*'] }, 'label', 'required', 'This field is required.'],
      [{ label: '   ', scopes: ['*'] }, 'label', 'blank', 'This field may not be blank.'],
      [{ label: 'x'.repeat(41), scopes: ['*'] }, 'label', 'max_length', 'Ensure this field has no more than 40 characters.'],
      [{ label: { a: 1 }, scopes: ['*'] }, 'label', 'invalid_input', 'Invalid value: must be string.'],
      [{ label: 'x' }, 'scopes', 'required', 'This field is required.'],
      [{ label: 'x', scopes: [] }, 'scopes', 'invalid_input', 'At least one scope is required.'],
      [{ label: 'x', scopes: ['insight:nope'] }, 'scopes', 'invalid_input', 'Invalid scope: insight:nope'],
      [{ label: 'x', scopes: ['invalid'] }, 'scopes', 'invalid_input', 'Invalid scope: invalid'],
      [{ label: 'x', scopes: ['*'], scoped_teams: [otherProjectId] }, 'scoped_teams', 'invalid_input', notMember],
      [{ label: 'x', scopes: ['*'], scoped_teams: [1, 999] }, 'scoped_teams', 'invalid_input', notMember],
      [{ label: 'x', scopes: ['*'], scoped_teams: [1e20] }, 'scoped_teams', 'invalid_input', notMember],
      [{ label: 'x', scopes: ['*'], scoped_teams: [-1] }, 'scoped_teams', 'invalid_input', notMember],
      [{ label: 'x', scopes: ['*'], scoped_teams: ['a'] }, 'scoped_teams__0', 'invalid_input', 'Invalid value: must be integer.'],
      [{ label: 'x', scopes: ['*'], scoped_teams: {} }, 'scoped_teams', 'invalid_input', 'Invalid value: must be array,null.'],
      [{ label: 'x', scopes: ['*'], scoped_organizations: ['nope'] }, 'scoped_organizations', 'invalid_input', 'Invalid organization UUID'],
      [
        { label: 'x', scopes: ['*'], scoped_organizations: [organizationId, otherOrganizationId] },
        'scoped_organizations',
        'invalid_input',
        'You must be a member of all organizations that you are scoping the key to.',
      ],
    ];
    for (const [body, attr, code, detail] of cases) {
      const response = await server.post('/api/personal_api_keys/', body);
      assert.equal(response.status, 400, JSON.stringify(body));
      assert.deepEqual(response.body, { type: 'validation_error', code, detail, attr }, JSON.stringify(body));
    }
    assert.equal((await server.get('/api/personal_api_keys/')).body.length, count);
  });

  test('only a managing key creates keys', async () => {
    for (const key of [insightReader, scopedManager]) {
      const response = await server.post('/api/personal_api_keys/', { label: 'Nope', scopes: ['*'] }, { key });
      assert.equal(response.status, 403);
      assert.deepEqual(response.body, SELF_ACCESS_ONLY);
    }
  });

  test('delete answers 204 and the key stops authenticating at once', async () => {
    const created = (await server.post('/api/personal_api_keys/', { label: 'Doomed', scopes: ['*'] })).body;
    assert.equal((await server.get('/api/projects/', { key: created.value })).status, 200);

    for (const key of [insightReader, scopedManager]) {
      const refused = await server.delete(`/api/personal_api_keys/${created.id}/`, { key });
      assert.equal(refused.status, 403);
      assert.deepEqual(refused.body, SELF_ACCESS_ONLY);
    }
    const ownRefused = await server.delete('/api/personal_api_keys/@current/', { key: insightReader });
    assert.equal(ownRefused.status, 403);
    assert.deepEqual(ownRefused.body, SELF_ACCESS_ONLY);
    assert.equal((await server.get('/api/personal_api_keys/@current/', { key: insightReader })).status, 200);

    const deleted = await server.delete(`/api/personal_api_keys/${created.id}`);
    assert.equal(deleted.status, 204);
    assert.equal(deleted.text, '');
    const after = await server.get('/api/projects/', { key: created.value });
    assert.equal(after.status, 401);
    assert.equal(after.body.detail, 'Personal API key found in request Authorization header is invalid.');
    const again = await server.delete(`/api/personal_api_keys/${created.id}/`);
    assert.equal(again.status, 404);
    assert.deepEqual(again.body, ERRORS.notFound);
    assert.ok(!(await server.get('/api/personal_api_keys/')).body.some((key: { id: string }) => key.id === created.id));
  });

  test("another user's key cannot be deleted and keeps working", async () => {
    for (const key of [colleague, outsider]) {
      const response = await server.delete(`/api/personal_api_keys/${await idOf(key)}/`);
      assert.equal(response.status, 404);
      assert.deepEqual(response.body, ERRORS.notFound);
      assert.equal((await server.get('/api/personal_api_keys/@current/', { key })).status, 200);
    }
    assert.equal((await server.delete('/api/personal_api_keys/not-a-key/')).status, 404);
  });

  test('a managing key can delete itself', async () => {
    const created = (await server.post('/api/personal_api_keys/', { label: 'Self', scopes: ['*'] })).body;
    assert.equal((await server.delete('/api/personal_api_keys/@current', { key: created.value })).status, 204);
    assert.equal((await server.get('/api/personal_api_keys/@current', { key: created.value })).status, 401);
  });

  test('keys are not updated or rolled', async () => {
    const patch = await server.patch('/api/personal_api_keys/@current/', { label: 'Renamed' });
    assert.equal(patch.status, 405);
    assert.equal(patch.body.code, 'method_not_allowed');
    assert.equal((await server.post(`/api/personal_api_keys/${await idOf(manager)}/roll/`, {})).status, 404);
    assert.equal((await server.get('/api/personal_api_keys/@current/')).body.label, 'Manager');
  });
});
