import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { TallyServer } from '../support/tally.js';

/** With both stores on servers, the data directory holds nothing, so no server holds it. */
const NOTHING_TO_HOLD =
  process.env.TEST_E2E_POSTGRES_URL && process.env.TEST_E2E_CLICKHOUSE_URL ? 'no data directory in use with PostgreSQL and ClickHouse' : false;

describe('tally CLI', () => {
  const server = new TallyServer();
  after(() => server.dispose());

  test('keys create prints the key alone on the last line, with scopes and projects', async () => {
    const result = server.cli(['keys', 'create', '--scopes', 'person:read,insight:read', '--projects', '1', '--label', 'Reader']);
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.lastLine, /^phx_[A-Za-z0-9]+$/);
    await server.start();
    const list = await server.get('/api/projects/', { key: result.lastLine });
    assert.equal(list.status, 403);
    await server.stop();
  });

  test('invalid scopes are refused with exit code 1', () => {
    const result = server.cli(['keys', 'create', '--scopes', 'person:admin']);
    assert.equal(result.status, 1);
    assert.match(result.stderr, /Invalid scope: person:admin/);
  });

  test('projects create prints {"id","api_token"} on the last line', async () => {
    const result = server.cli(['projects', 'create', '--name', 'From CLI', '--timezone', 'Asia/Tokyo']);
    assert.equal(result.status, 0, result.stderr);
    const created = JSON.parse(result.lastLine);
    assert.equal(typeof created.id, 'number');
    assert.match(created.api_token, /^phc_/);
    const bad = server.cli(['projects', 'create', '--name', 'Bad', '--timezone', 'Nowhere/Land']);
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /timezone/);
    const key = server.cli(['keys', 'create', '--scopes', 'project:read']).lastLine;
    await server.start();
    const project = await server.get(`/api/projects/${created.id}/`, { key });
    assert.equal(project.body.name, 'From CLI');
    assert.equal(project.body.timezone, 'Asia/Tokyo');
    assert.equal(project.body.api_token, created.api_token);
    await server.stop();
  });

  test('jobs run reports the tasks it ran', () => {
    const result = server.cli(['jobs', 'run']);
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.lastLine, /^\d+ tasks$/);
  });

  test('offline commands refuse while a server holds the data directory, and work after it stops', { skip: NOTHING_TO_HOLD }, async () => {
    await server.start();
    for (const args of [
      ['keys', 'create', '--scopes', '*'],
      ['projects', 'create', '--name', 'X'],
      ['jobs', 'run'],
    ]) {
      const result = server.cli(args);
      assert.equal(result.status, 1, args.join(' '));
      assert.match(result.stderr, /in use by a running Tally server/);
    }
    assert.equal((await server.get('/_health', { key: null })).status, 200, 'the server is unaffected');
    await server.stop();
    assert.equal(server.cli(['jobs', 'run']).status, 0);
  });

  test('a lock left by a killed server does not block the next start', async () => {
    await server.start();
    await server.kill();
    assert.equal(server.cli(['jobs', 'run']).status, 0);
  });
});
