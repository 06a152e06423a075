import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ERRORS, TallyServer } from '../support/tally.js';

describe('personal API key authentication', () => {
  let server: TallyServer;
  let readOnly: string;
  let writeOnly: string;
  let personOnly: string;
  let scopedToSecond: string;
  let secondProjectId: number;

  before(async () => {
    server = new TallyServer();
    const second = server.createProject('Second');
    secondProjectId = second.id;
    readOnly = server.createKey('project:read');
    writeOnly = server.createKey('project:write');
    personOnly = server.createKey('person:read');
    scopedToSecond = server.createKey('*', [secondProjectId]);
    const allScopes = server.createKey('*');
    await server.start();
    server.personalApiKey = allScopes;
  });
  after(() => server.dispose());

  test('no key: 401 not_authenticated', async () => {
    const response = await server.get('/api/projects/', { key: null });
    assert.equal(response.status, 401);
    assert.deepEqual(response.body, ERRORS.notAuthenticated);
  });

  test('a non-Bearer Authorization header counts as no key', async () => {
    const response = await server.get('/api/projects/', { key: null, headers: { authorization: 'Basic abc' } });
    assert.equal(response.status, 401);
    assert.deepEqual(response.body, ERRORS.notAuthenticated);
  });

  test('unknown key: 401 authentication_failed naming where the key was found', async () => {
    const header = await server.get('/api/projects/', { key: 'phx_unknown' });
    assert.equal(header.status, 401);
    assert.deepEqual(header.body, {
      type: 'authentication_error',
      code: 'authentication_failed',
      detail: 'Personal API key found in request Authorization header is invalid.',
      attr: null,
    });
    const query = await server.get('/api/projects/?personal_api_key=phx_unknown', { key: null });
    assert.equal(query.status, 401);
    assert.equal(query.body.detail, 'Personal API key found in request query string is invalid.');
    const body = await server.patch('/api/projects/1/', { personal_api_key: 'phx_unknown', name: 'x' }, { key: null });
    assert.equal(body.status, 401);
    assert.equal(body.body.detail, 'Personal API key found in request body is invalid.');
  });

  test('the key is accepted from the header, the body and the query string', async () => {
    const key = server.personalApiKey;
    assert.equal((await server.get('/api/projects/', { headers: { authorization: `Bearer   ${key}  ` }, key: null })).status, 200);
    assert.equal((await server.get(`/api/projects/?personal_api_key=${key}`, { key: null })).status, 200);
    const viaBody = await server.patch('/api/projects/1/', { personal_api_key: key, name: 'Via body' }, { key: null });
    assert.equal(viaBody.status, 200);
    assert.equal(viaBody.body.name, 'Via body');
  });

  test('a missing scope is 403 naming the scope', async () => {
    const response = await server.get('/api/projects/', { key: personOnly });
    assert.equal(response.status, 403);
    assert.deepEqual(response.body, ERRORS.missingScope('project:read'));
    const patch = await server.patch('/api/projects/1/', { name: 'nope' }, { key: readOnly });
    assert.equal(patch.status, 403);
    assert.deepEqual(patch.body, ERRORS.missingScope('project:write'));
    assert.equal((await server.get('/api/projects/1/')).body.name !== 'nope', true);
  });

  test('write implies read; read does not imply write', async () => {
    assert.equal((await server.get('/api/projects/1/', { key: writeOnly })).status, 200);
    assert.equal((await server.get('/api/projects/1/', { key: readOnly })).status, 200);
    assert.equal((await server.patch('/api/projects/1/', { name: 'By writer' }, { key: writeOnly })).status, 200);
  });

  test('scoped_teams: only those projects, and no non-project endpoints', async () => {
    const own = await server.get(`/api/projects/${secondProjectId}/`, { key: scopedToSecond });
    assert.equal(own.status, 200);
    assert.equal(own.body.name, 'Second');
    const other = await server.get('/api/projects/1/', { key: scopedToSecond });
    assert.equal(other.status, 403);
    assert.deepEqual(other.body, ERRORS.permissionDenied('API key does not have access to the requested project: ID 1.'));
    const list = await server.get('/api/projects/', { key: scopedToSecond });
    assert.equal(list.status, 403);
    assert.deepEqual(list.body, ERRORS.permissionDenied('API keys with scoped projects are only supported on project-based endpoints.'));
  });

  test('an unknown project is 404; @current is the first project', async () => {
    const missing = await server.get('/api/projects/999/');
    assert.equal(missing.status, 404);
    assert.deepEqual(missing.body, ERRORS.notFound);
    const current = await server.get('/api/projects/@current/');
    assert.equal(current.status, 200);
    assert.equal(current.body.id, 1);
  });
});
