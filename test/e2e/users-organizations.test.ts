import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { addSecondOrganization } from '../support/accounts.js';
import { UUID_PATTERN } from '../support/definitions.js';
import { ERRORS, TallyServer } from '../support/tally.js';

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const SCOPED_KEYS_REFUSED = ERRORS.permissionDenied('API keys with scoped projects are only supported on project-based endpoints.');
const ONLY_ME = ERRORS.permissionDenied("As a non-staff user you're only allowed to access the `@me` user instance.");

describe('users and organizations', () => {
  let server: TallyServer;
  let organizationId: string;
  let otherOrganizationId: string;
  let otherProjectId: number;
  const keys: Record<string, string> = {};

  before(async () => {
    server = new TallyServer();
    server.createProject('Second', 'Europe/Berlin');
    const create = (name: string, scopes: string, extra: string[] = []) => {
      keys[name] = server.cli(['keys', 'create', '--scopes', scopes, ...extra]).lastLine;
    };
    create('all', '*');
    create('userRead', 'user:read');
    create('organizationRead', 'organization:read');
    create('projectRead', 'project:read');
    create('insightRead', 'insight:read');
    create('scoped', '*', ['--projects', '2']);

    ({ organizationId, otherOrganizationId, otherProjectId } = await addSecondOrganization(server, 'Ünïcode & Co. — Ltd!'));
    create('outsider', '*', ['--user', 'bob@example.com']);
    await server.start();
    server.personalApiKey = keys.all!;
  });
  after(() => server.dispose());

  function projectBasic(project: Record<string, unknown>) {
    const list = [
      'id',
      'uuid',
      'organization',
      'project_id',
      'api_token',
      'name',
      'completed_snippet_onboarding',
      'has_completed_onboarding_for',
      'ingested_event',
      'is_demo',
      'timezone',
      'access_control',
    ];
    return Object.fromEntries(list.map((field) => [field, project[field]]));
  }

  test('@me is the key user, with its organization and the key current project', async () => {
    for (const path of ['/api/users/@me/', '/api/users/@me']) {
      const response = await server.get(path, { key: keys.userRead });
      assert.equal(response.status, 200, path);
      const me = response.body;
      assert.match(me.uuid, UUID_PATTERN);
      assert.match(me.date_joined, ISO_TIME);
      const projects = (await server.get('/api/projects/')).body.results;
      const organization = (await server.get(`/api/organizations/${organizationId}/`)).body;
      assert.deepEqual(me, {
        id: 1,
        uuid: me.uuid,
        distinct_id: me.uuid,
        first_name: 'Admin',
        last_name: '',
        email: 'admin@localhost',
        date_joined: me.date_joined,
        is_staff: false,
        is_email_verified: true,
        has_password: false,
        is_2fa_enabled: false,
        team: projects[0],
        organization,
        organizations: [{ id: organizationId, name: 'Default organization', slug: 'default-organization', membership_level: 8 }],
      });
      assert.deepEqual(me.team, projectBasic((await server.get('/api/projects/@current/')).body));
      assert.equal(me.team.organization, me.organization.id);
      assert.equal(me.id, (await server.get('/api/personal_api_keys/@current/', { key: keys.userRead })).body.user_id);
      assert.ok(Date.parse(me.date_joined) >= Date.parse(organization.created_at));
    }
  });

  test('@me answers the same user to every key of it, and is stable', async () => {
    const first = (await server.get('/api/users/@me/')).body;
    const again = (await server.get('/api/users/@me/', { key: keys.userRead })).body;
    assert.deepEqual(again, first);
  });

  test('a key limited to projects reads @me, with its first project as team', async () => {
    const response = await server.get('/api/users/@me/', { key: keys.scoped });
    assert.equal(response.status, 200);
    assert.equal(response.body.id, 1);
    assert.deepEqual(response.body.team, projectBasic((await server.get('/api/projects/2/')).body));
    assert.equal(response.body.team.timezone, 'Europe/Berlin');
  });

  test("another organization's user sees its own organization", async () => {
    const me = (await server.get('/api/users/@me/', { key: keys.outsider })).body;
    assert.equal(me.id, 3);
    assert.equal(me.email, 'bob@example.com');
    assert.equal(me.first_name, 'Bob');
    assert.notEqual(me.distinct_id, (await server.get('/api/users/@me/')).body.distinct_id);
    assert.equal(me.team.id, otherProjectId);
    assert.equal(me.team.name, 'Elsewhere');
    assert.equal(me.organization.id, otherOrganizationId);
    assert.equal(me.organization.slug, 'unicode-co-ltd');
    assert.equal(me.organization.member_count, 1);
    assert.deepEqual(me.organization.projects, [{ id: otherProjectId, name: 'Elsewhere', organization_id: otherOrganizationId }]);
    assert.deepEqual(me.organizations, [{ id: otherOrganizationId, name: 'Ünïcode & Co. — Ltd!', slug: 'unicode-co-ltd', membership_level: 8 }]);
  });

  test('users: only @me, read only, scope user:read', async () => {
    for (const id of ['1', '2', 'abc', '@current']) {
      for (const path of [`/api/users/${id}/`, `/api/users/${id}`]) {
        const response = await server.get(path);
        assert.equal(response.status, 403, path);
        assert.deepEqual(response.body, ONLY_ME);
      }
    }
    const missing = await server.get('/api/users/@me/', { key: keys.insightRead });
    assert.equal(missing.status, 403);
    assert.deepEqual(missing.body, ERRORS.missingScope('user:read'));
    for (const method of ['PATCH', 'PUT', 'DELETE', 'POST']) {
      const response = await server.request(method, '/api/users/@me/', { body: { first_name: 'Eve' } });
      assert.equal(response.status, 405, method);
      assert.equal(response.body.code, 'method_not_allowed');
    }
    assert.equal((await server.get('/api/users/@me/')).body.first_name, 'Admin');
  });

  test('organizations list: the key organization in a DRF envelope', async () => {
    for (const path of ['/api/organizations/', '/api/organizations']) {
      const response = await server.get(path, { key: keys.organizationRead });
      assert.equal(response.status, 200, path);
      const organization = response.body.results[0];
      assert.match(organization.created_at, ISO_TIME);
      const projects = (await server.get('/api/projects/')).body.results;
      assert.deepEqual(response.body, {
        count: 1,
        next: null,
        previous: null,
        results: [
          {
            id: organizationId,
            name: 'Default organization',
            slug: 'default-organization',
            created_at: organization.created_at,
            updated_at: organization.created_at,
            membership_level: 8,
            member_count: 2,
            teams: projects,
            projects: [
              { id: 1, name: 'Default project', organization_id: organizationId },
              { id: 2, name: 'Second', organization_id: organizationId },
            ],
            metadata: {},
            available_product_features: [],
          },
        ],
      });
    }
    const past = await server.get('/api/organizations/?limit=1&offset=1');
    assert.deepEqual(past.body, {
      count: 1,
      next: null,
      previous: `${server.url}/api/organizations/?limit=1&offset=0`,
      results: [],
    });
    const bad = await server.get('/api/organizations/?limit=abc');
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.body, { type: 'validation_error', code: 'invalid', detail: 'A valid integer is required.', attr: 'limit' });
  });

  test('organization by UUID (any case) or @current; any other id is not found', async () => {
    const listed = (await server.get('/api/organizations/')).body.results[0];
    for (const id of [organizationId, organizationId.toUpperCase(), '@current']) {
      for (const path of [`/api/organizations/${id}/`, `/api/organizations/${id}`]) {
        const response = await server.get(path, { key: keys.organizationRead });
        assert.equal(response.status, 200, path);
        assert.deepEqual(response.body, listed);
      }
    }
    for (const id of [otherOrganizationId, '01a21af8-0000-7000-8000-000000000000', 'nope', '1']) {
      const response = await server.get(`/api/organizations/${id}/`);
      assert.equal(response.status, 404, id);
      assert.deepEqual(response.body, ERRORS.notFound);
    }
    const outsider = await server.get(`/api/organizations/${organizationId}/`, { key: keys.outsider });
    assert.equal(outsider.status, 404);
    assert.equal((await server.get(`/api/organizations/${otherOrganizationId}/`, { key: keys.outsider })).status, 200);
  });

  test("an organization's projects answer what /api/projects/ answers", async () => {
    const all = await server.get('/api/projects/', { key: keys.projectRead });
    for (const id of [organizationId, '@current']) {
      for (const path of [`/api/organizations/${id}/projects/`, `/api/organizations/${id}/projects`]) {
        const response = await server.get(path, { key: keys.projectRead });
        assert.equal(response.status, 200, path);
        assert.deepEqual(response.body, all.body);
      }
    }
    const paged = await server.get('/api/organizations/@current/projects/?limit=1');
    assert.deepEqual(paged.body, {
      ...(await server.get('/api/projects/?limit=1')).body,
      next: `${server.url}/api/organizations/@current/projects/?limit=1&offset=1`,
    });
    for (const project of ['1', '2', '@current']) {
      const expected = await server.get(`/api/projects/${project}/`);
      for (const path of [`/api/organizations/${organizationId}/projects/${project}/`, `/api/organizations/@current/projects/${project}`]) {
        const response = await server.get(path, { key: keys.projectRead });
        assert.equal(response.status, 200, path);
        assert.deepEqual(response.body, expected.body, path);
      }
    }
    assert.deepEqual((await server.get('/api/organizations/@current/projects/2/')).body, (await server.get('/api/environments/2/')).body);
  });

  test("another organization's projects and unknown ids are not found", async () => {
    for (const path of [
      `/api/organizations/@current/projects/${otherProjectId}/`,
      '/api/organizations/@current/projects/999/',
      '/api/organizations/@current/projects/abc/',
      `/api/organizations/${otherOrganizationId}/projects/`,
      `/api/organizations/${otherOrganizationId}/projects/${otherProjectId}/`,
      `/api/organizations/${otherOrganizationId}/projects/1/`,
      '/api/organizations/nope/projects/1/',
    ]) {
      const response = await server.get(path);
      assert.equal(response.status, 404, path);
      assert.deepEqual(response.body, ERRORS.notFound, path);
    }
    const outsider = await server.get(`/api/organizations/${otherOrganizationId}/projects/`, { key: keys.outsider });
    assert.deepEqual(
      outsider.body.results.map((project: { id: number }) => project.id),
      [otherProjectId],
    );
    assert.equal((await server.get('/api/organizations/@current/projects/1/', { key: keys.outsider })).status, 404);
  });

  test('scopes: organization:read for organizations, project:read for their projects', async () => {
    for (const path of ['/api/organizations/', '/api/organizations/@current/']) {
      const response = await server.get(path, { key: keys.projectRead });
      assert.equal(response.status, 403, path);
      assert.deepEqual(response.body, ERRORS.missingScope('organization:read'));
    }
    for (const path of ['/api/organizations/@current/projects/', '/api/organizations/@current/projects/1/']) {
      const response = await server.get(path, { key: keys.organizationRead });
      assert.equal(response.status, 403, path);
      assert.deepEqual(response.body, ERRORS.missingScope('project:read'));
    }
  });

  test('a key limited to projects is refused on every organization path', async () => {
    for (const path of [
      '/api/organizations/',
      '/api/organizations/@current/',
      `/api/organizations/${organizationId}/`,
      '/api/organizations/@current/projects/',
      '/api/organizations/@current/projects/2/',
      `/api/organizations/${organizationId}/projects/2`,
    ]) {
      const response = await server.get(path, { key: keys.scoped });
      assert.equal(response.status, 403, path);
      assert.deepEqual(response.body, SCOPED_KEYS_REFUSED, path);
    }
  });

  test('organizations are not written through the API', async () => {
    for (const [method, path] of [
      ['POST', '/api/organizations/'],
      ['PATCH', '/api/organizations/@current/'],
      ['PUT', `/api/organizations/${organizationId}/`],
      ['DELETE', `/api/organizations/${organizationId}/`],
      ['POST', '/api/organizations/@current/projects/'],
      ['PATCH', '/api/organizations/@current/projects/1/'],
    ] as const) {
      const response = await server.request(method, path, { body: { name: 'Renamed' } });
      assert.equal(response.status, 405, `${method} ${path}`);
      assert.equal(response.body.code, 'method_not_allowed');
    }
    assert.equal((await server.get('/api/organizations/@current/')).body.name, 'Default organization');
  });
});
