import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { TallyServer } from '../support/tally.js';

describe('projects API', () => {
  let server: TallyServer;

  before(async () => {
    server = new TallyServer();
    server.cli(['projects', 'create', '--name', 'Two', '--timezone', 'Europe/Berlin']);
    server.cli(['projects', 'create', '--name', 'Three']);
    server.personalApiKey = server.cli(['keys', 'create', '--scopes', '*']).lastLine;
    await server.start();
  });
  after(() => server.dispose());

  test('list is paginated with absolute next/previous links', async () => {
    const first = await server.get('/api/projects/?limit=2');
    assert.equal(first.status, 200);
    assert.equal(first.body.count, 3);
    assert.deepEqual(
      first.body.results.map((project: { id: number }) => project.id),
      [1, 2],
    );
    assert.equal(first.body.previous, null);
    assert.equal(first.body.next, `${server.url}/api/projects/?limit=2&offset=2`);
    const second = await server.get('/api/projects/?limit=2&offset=2');
    assert.deepEqual(
      second.body.results.map((project: { name: string }) => project.name),
      ['Three'],
    );
    assert.equal(second.body.next, null);
    assert.equal(second.body.previous, `${server.url}/api/projects/?limit=2&offset=0`);
    assert.deepEqual(Object.keys(second.body.results[0]).sort(), [
      'access_control',
      'api_token',
      'completed_snippet_onboarding',
      'has_completed_onboarding_for',
      'id',
      'ingested_event',
      'is_demo',
      'name',
      'organization',
      'project_id',
      'timezone',
      'uuid',
    ]);
  });

  test('paths work with and without the trailing slash', async () => {
    assert.equal((await server.get('/api/projects')).status, 200);
    const retrieve = await server.get('/api/projects/2');
    assert.equal(retrieve.status, 200);
    assert.equal(retrieve.body.name, 'Two');
    assert.equal(retrieve.body.timezone, 'Europe/Berlin');
  });

  test('every project path is served under /api/environments/ too', async () => {
    for (const [environment, project] of [
      ['/api/environments/2/', '/api/projects/2/'],
      ['/api/environments/2', '/api/projects/2'],
      ['/api/environments/1/persons/?limit=1', '/api/projects/1/persons/?limit=1'],
      ['/api/environments/1/event_definitions/', '/api/projects/1/event_definitions/'],
    ] as const) {
      const [viaEnvironment, viaProject] = [await server.get(environment), await server.get(project)];
      assert.equal(viaEnvironment.status, 200, environment);
      assert.deepEqual(viaEnvironment.body, viaProject.body, environment);
    }
    assert.equal((await server.get('/api/environments/999/')).status, 404);
  });

  test('retrieve has the settings', async () => {
    const project = (await server.get('/api/projects/1/')).body;
    assert.equal(project.id, 1);
    assert.equal(project.week_start_day, null);
    assert.equal(project.person_display_name_properties, null);
    assert.deepEqual(project.test_account_filters, [
      { key: 'email', value: '@localhost', operator: 'not_icontains', type: 'person' },
      { key: '$host', value: '^(localhost|127\\.0\\.0\\.1)($|:)', operator: 'not_regex', type: 'event' },
    ]);
  });

  test('patch updates every writable field', async () => {
    const filters = [{ key: '$browser', value: 'Chrome', operator: 'exact', type: 'event' }];
    const response = await server.patch('/api/projects/3/', {
      name: 'Three renamed',
      timezone: 'America/Los_Angeles',
      week_start_day: 1,
      test_account_filters: filters,
      person_display_name_properties: ['email', 'name'],
    });
    assert.equal(response.status, 200);
    assert.equal(response.body.name, 'Three renamed');
    assert.equal(response.body.timezone, 'America/Los_Angeles');
    assert.equal(response.body.week_start_day, 1);
    assert.deepEqual(response.body.test_account_filters, filters);
    assert.deepEqual(response.body.person_display_name_properties, ['email', 'name']);
    const reread = (await server.get('/api/projects/3/')).body;
    assert.equal(reread.name, 'Three renamed');
    assert.equal(reread.week_start_day, 1);
  });

  test('invalid patches answer 400 with attr and change nothing', async () => {
    const before = (await server.get('/api/projects/2/')).body;
    const cases: [object, string][] = [
      [{ timezone: 'Mars/Olympus' }, 'timezone'],
      [{ timezone: 42 }, 'timezone'],
      [{ week_start_day: 3 }, 'week_start_day'],
      [{ name: '' }, 'name'],
      [{ name: 'ok', test_account_filters: { key: 'x' } }, 'test_account_filters'],
      [{ test_account_filters: [{ value: 'no key' }] }, 'test_account_filters'],
      [{ person_display_name_properties: 'email' }, 'person_display_name_properties'],
    ];
    for (const [body, attr] of cases) {
      const response = await server.patch('/api/projects/2/', body);
      assert.equal(response.status, 400, JSON.stringify(body));
      assert.equal(response.body.type, 'validation_error');
      assert.equal(response.body.attr, attr, JSON.stringify(body));
    }
    const afterwards = (await server.get('/api/projects/2/')).body;
    assert.deepEqual(afterwards, before);
  });

  test('canonical time zones are stored in their proper case', async () => {
    const response = await server.patch('/api/projects/2/', { timezone: 'europe/london' });
    assert.equal(response.status, 200);
    assert.equal(response.body.timezone, 'Europe/London');
  });

  test('framework errors use the PostHog body', async () => {
    const unknown = await server.get('/api/nothing-here/');
    assert.equal(unknown.status, 404);
    assert.deepEqual(unknown.body, { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null });

    const wrongMethod = await server.request('PUT', '/api/projects/1/', { body: {} });
    assert.equal(wrongMethod.status, 405);
    assert.deepEqual(wrongMethod.body, {
      type: 'invalid_request',
      code: 'method_not_allowed',
      detail: 'Method "PUT" not allowed.',
      attr: null,
    });

    const malformed = await server.request('PATCH', '/api/projects/1/', {
      rawBody: '{"name": ',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(malformed.status, 400);
    assert.equal(malformed.body.type, 'invalid_request');
    assert.equal(malformed.body.code, 'parse_error');

    const huge = await server.announceBody('PATCH', '/api/projects/1/', 21 * 1024 * 1024, { 'content-type': 'application/json' });
    assert.equal(huge.status, 413);
    assert.equal(huge.body.type, 'invalid_request');

    const notAnObject = await server.patch('/api/projects/1/', ['name']);
    assert.equal(notAnObject.status, 400);
    assert.equal(notAnObject.body.type, 'validation_error');

    const badLimit = await server.get('/api/projects/?limit=abc');
    assert.equal(badLimit.status, 400);
    assert.equal(badLimit.body.attr, 'limit');
    assert.equal((await server.get('/api/projects/1/')).body.name, 'Default project');
  });

  test('the OpenAPI document lists the routes', async () => {
    const schema = await server.get('/api/schema/', { key: null });
    assert.equal(schema.status, 200);
    assert.equal(schema.body.openapi.startsWith('3.'), true);
    assert.ok(schema.body.paths['/api/projects/']);
    assert.ok(schema.body.paths['/api/projects/{project_id}/']);
  });
});
