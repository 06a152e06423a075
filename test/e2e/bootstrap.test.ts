import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { createPostgresDatabase, POSTGRES_SKIP_REASON } from '../support/catalogs.js';
import { TallyServer } from '../support/tally.js';

describe('bootstrap on an empty catalog', () => {
  const servers: TallyServer[] = [];
  after(async () => Promise.all(servers.map((server) => server.dispose())));

  test('creates project 1 with a random phc_ token and a * key, printed once', async () => {
    const server = await TallyServer.start();
    servers.push(server);
    assert.match(server.projectToken, /^phc_[A-Za-z0-9]{20,}$/);
    assert.match(server.personalApiKey, /^phx_[A-Za-z0-9]{20,}$/);

    const health = await server.get('/_health', { key: null });
    assert.equal(health.status, 200);
    assert.deepEqual(health.body, { status: 'ok' });

    const list = await server.get('/api/projects/');
    assert.equal(list.status, 200);
    assert.equal(list.body.count, 1);
    assert.equal(list.body.next, null);
    assert.equal(list.body.previous, null);
    const [project] = list.body.results;
    assert.equal(project.id, 1);
    assert.equal(project.name, 'Default project');
    assert.equal(project.timezone, 'UTC');
    assert.equal(project.api_token, server.projectToken);
    assert.match(project.uuid, /^[0-9a-f-]{36}$/);
    assert.match(project.organization, /^[0-9a-f-]{36}$/);

    await server.restart();
    assert.doesNotMatch(server.stdout, /phc_|phx_/, 'credentials are printed only on the first start');
    const again = await server.get('/api/projects/1/');
    assert.equal(again.status, 200);
    assert.equal(again.body.api_token, project.api_token);
  });

  test('uses TALLY_PROJECT_TOKEN and TALLY_PERSONAL_API_KEY when set', async () => {
    const server = await TallyServer.start({
      TALLY_PROJECT_TOKEN: 'phc_fixedtokenfortests',
      TALLY_PERSONAL_API_KEY: 'phx_fixedpersonalkeyfortests',
    });
    servers.push(server);
    assert.equal(server.projectToken, 'phc_fixedtokenfortests');
    assert.equal(server.personalApiKey, 'phx_fixedpersonalkeyfortests');
    const project = await server.get('/api/projects/1/', { key: 'phx_fixedpersonalkeyfortests' });
    assert.equal(project.status, 200);
    assert.equal(project.body.api_token, 'phc_fixedtokenfortests');
  });

  test('restart keeps every change', async () => {
    const server = await TallyServer.start();
    servers.push(server);
    const patched = await server.patch('/api/projects/1/', { name: 'Renamed', timezone: 'Europe/London', week_start_day: 1 });
    assert.equal(patched.status, 200);
    await server.restart();
    const project = await server.get('/api/projects/1/');
    assert.equal(project.body.name, 'Renamed');
    assert.equal(project.body.timezone, 'Europe/London');
    assert.equal(project.body.week_start_day, 1);
  });

  test('a server killed with SIGKILL restarts on the same data directory', async () => {
    const server = await TallyServer.start();
    servers.push(server);
    await server.patch('/api/projects/1/', { name: 'Before crash' });
    await server.kill();
    await server.start();
    const project = await server.get('/api/projects/1/');
    assert.equal(project.body.name, 'Before crash');
  });

  test('bootstraps and keeps a PostgreSQL catalog (DATABASE_URL)', { skip: POSTGRES_SKIP_REASON ?? false }, async () => {
    const database = await createPostgresDatabase();
    try {
      const server = await TallyServer.start({ DATABASE_URL: database.url });
      servers.push(server);
      assert.match(server.personalApiKey, /^phx_/);
      assert.equal((await server.patch('/api/projects/1/', { name: 'On PostgreSQL' })).status, 200);
      await server.restart();
      assert.doesNotMatch(server.stdout, /phx_/);
      const project = await server.get('/api/projects/1/');
      assert.equal(project.body.name, 'On PostgreSQL');
      assert.equal(project.body.api_token, server.projectToken);
      await server.stop();
    } finally {
      await database.drop();
    }
  });
});
