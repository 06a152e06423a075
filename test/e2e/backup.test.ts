import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { CLI, tempDataDir, TallyServer, type CliResult } from '../support/tally.js';

/** Backups are of the embedded stores: with a PostgreSQL catalog or a ClickHouse server, `tally backup` refuses. */
const EMBEDDED_ONLY = process.env.TEST_E2E_POSTGRES_URL || process.env.TEST_E2E_CLICKHOUSE_URL ? 'backups are of the embedded stores' : false;

/** The CLI run without blocking the test process (senders keep posting meanwhile), in `cwd`. */
function cli(args: string[], env: Record<string, string>, cwd = process.cwd()): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, LOG_LEVEL: 'warn', ...env }, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('exit', (status) => {
      const lines = stdout.trim().split('\n');
      resolve({ status, stdout, stderr, lastLine: lines[lines.length - 1] ?? '' });
    });
  });
}

function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** A path that does not exist yet, in a temporary directory of its own. */
function newPath(prefix: string): string {
  return path.join(tempDir(prefix), 'new');
}

interface Person {
  id: number;
  uuid: string;
  distinct_ids: string[];
  properties: Record<string, unknown>;
  created_at: string;
}

async function allPersons(server: TallyServer): Promise<Person[]> {
  const persons: Person[] = [];
  for (let offset = 0; ; offset += 1000) {
    const page = await server.bodyOf<{ results: Person[]; next: string | null }>('GET', `/api/projects/1/persons/?limit=1000&offset=${offset}`);
    persons.push(...page.results);
    if (page.next === null) return persons;
  }
}

/** An event as [uuid, event, distinct_id, person_id, properties]. */
type EventRow = [string, string, string, string, string];

/** Every event, by uuid. */
async function allEvents(server: TallyServer): Promise<EventRow[]> {
  const body = await server.bodyOf<{ results: EventRow[] }>('POST', '/api/projects/1/query/', 200, {
    body: {
      query: {
        kind: 'HogQLQuery',
        query: 'select toString(uuid), event, distinct_id, toString(person_id), properties from events order by uuid limit 50000',
      },
    },
  });
  return body.results;
}

async function postBatch(server: TallyServer, batch: object[]): Promise<number> {
  const response = await fetch(`${server.url}/batch/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ api_key: server.projectToken, batch }),
  });
  await response.arrayBuffer();
  return response.status;
}

describe('tally backup and tally restore', () => {
  const servers: TallyServer[] = [];
  const directories: string[] = [];
  after(async () => {
    for (const server of servers) await server.dispose();
    for (const directory of directories) fs.rmSync(path.dirname(directory), { recursive: true, force: true });
  });

  function server(dataDir?: string, env: Record<string, string> = {}): TallyServer {
    const created = new TallyServer(dataDir, env);
    servers.push(created);
    return created;
  }

  function backupPath(): string {
    const directory = newPath('tally-backup-');
    directories.push(directory);
    return directory;
  }

  test('a stopped data directory (left by kill -9) restores exactly: persons, events, API writes, captures not processed before the kill', {
    skip: EMBEDDED_ONLY,
  }, async () => {
    const original = server();
    await original.start();
    const uuids = Array.from({ length: 30 }, () => randomUUID());
    const batch = uuids.map((uuid, index) => ({
      event: index % 3 === 0 ? '$identify' : 'viewed',
      distinct_id: `user-${index % 7}`,
      uuid,
      timestamp: new Date(Date.UTC(2024, 0, 1 + index)).toISOString(),
      properties: { index, ...(index % 3 === 0 ? { $anon_distinct_id: `anon-${index % 7}`, $set: { plan: `p${index}` } } : {}) },
    }));
    assert.equal(await postBatch(original, batch), 200);
    const persons = await allPersons(original);
    assert.equal(persons.length, 7);
    // Writes through the API: a person changed (catalog and its warehouse replica), one deleted.
    const changed = persons.find((person) => person.distinct_ids.includes('user-1'))!;
    await original.bodyOf('PATCH', `/api/projects/1/persons/${changed.id}/`, 200, { body: { properties: { vip: true } } });
    const deleted = persons.find((person) => person.distinct_ids.includes('user-2'))!;
    await original.bodyOf('DELETE', `/api/projects/1/persons/${deleted.id}/`, 204);
    const expectedPersons = await allPersons(original);
    const expectedEvents = await allEvents(original);
    assert.equal(expectedPersons.length, 6);
    assert.equal(expectedEvents.length, 30);
    // Acknowledged and never processed: a kill before the consumer ran leaves them in the log.
    const late = Array.from({ length: 5 }, () => randomUUID());
    assert.equal(
      await postBatch(
        original,
        late.map((uuid) => ({ event: 'late', distinct_id: 'late-user', uuid })),
      ),
      200,
    );
    await original.kill();

    const backup = backupPath();
    const result = await cli(['backup', backup], { TALLY_DATA_DIR: original.dataDir });
    assert.equal(result.status, 0, result.stderr);
    const manifest = JSON.parse(result.lastLine);
    assert.equal(manifest.path, backup);
    // The offline command opens the stores as a start would, so the log was processed first.
    assert.equal(manifest.warehouse.events, 35);
    assert.equal(manifest.catalog.persons, 7);
    assert.equal(manifest.capture_log.entries, 0);
    assert.deepEqual(fs.readdirSync(backup).sort(), ['capture-log', 'catalog.sqlite', 'tally-backup.json', 'warehouse']);

    const restoredDir = newPath('tally-restored-');
    directories.push(restoredDir);
    const restore = await cli(['restore', backup], { TALLY_DATA_DIR: restoredDir });
    assert.equal(restore.status, 0, restore.stderr);
    assert.equal(JSON.parse(restore.lastLine).warehouse.events, 35);

    const restored = server(restoredDir);
    await restored.start();
    restored.personalApiKey = original.personalApiKey;
    restored.projectToken = original.projectToken;
    const lateUser = (await allPersons(restored)).find((person) => person.distinct_ids.includes('late-user'));
    assert.ok(lateUser);
    assert.deepEqual(
      (await allPersons(restored)).filter((person) => person.uuid !== lateUser.uuid),
      expectedPersons,
    );
    const events = await allEvents(restored);
    assert.deepEqual(
      events.filter(([, event]) => event !== 'late'),
      expectedEvents,
    );
    assert.deepEqual(
      events
        .filter(([, event]) => event === 'late')
        .map(([uuid]) => uuid)
        .sort(),
      [...late].sort(),
    );
    const vips = encodeURIComponent(JSON.stringify([{ key: 'vip', operator: 'is_set', type: 'person' }]));
    const filtered = await restored.bodyOf('GET', `/api/projects/1/persons/?properties=${vips}`);
    assert.deepEqual(
      filtered.results.map((person: Person) => person.uuid),
      [changed.uuid],
      'the warehouse replica of the changed person came back too',
    );
    // The restored directory is a working one: captures go on.
    assert.equal(await postBatch(restored, [{ event: 'after', distinct_id: 'user-1', uuid: randomUUID() }]), 200);
    assert.equal((await allEvents(restored)).length, 36);
  });

  test('a backup taken through a running server under capture load restores every event and person acknowledged before it', {
    skip: EMBEDDED_ONLY,
  }, async (t) => {
    const original = server();
    await original.start();
    const acknowledgedAt = new Map<string, number>();
    const distinctIdOf = new Map<string, string>();
    let stop = false;
    let rejected = 0;
    const sender = async (id: number) => {
      for (let index = 0; !stop && index < 400; index++) {
        const batch = Array.from({ length: 20 }, (_, position) => {
          const uuid = randomUUID();
          const distinctId = `load-${id}-${(index * 20 + position) % 25}`;
          distinctIdOf.set(uuid, distinctId);
          return { event: 'tick', distinct_id: distinctId, uuid, properties: { $set: { sender: id, index } } };
        });
        const status = await postBatch(original, batch);
        if (status !== 200) {
          rejected += 1;
          continue;
        }
        const now = Date.now();
        for (const event of batch) acknowledgedAt.set(event.uuid, now);
      }
    };
    const senders = [0, 1, 2, 3].map(sender);
    while (acknowledgedAt.size < 1000) await new Promise((resolve) => setTimeout(resolve, 10));

    const backup = backupPath();
    const startedAt = Date.now();
    const acknowledgedBefore = [...acknowledgedAt.keys()];
    const result = await cli(['backup', backup], { TALLY_DATA_DIR: original.dataDir });
    const endedAt = Date.now();
    const acknowledgedDuring = [...acknowledgedAt.values()].filter((at) => at > startedAt && at < endedAt).length;
    stop = true;
    await Promise.all(senders);
    assert.equal(result.status, 0, result.stderr);
    assert.equal(rejected, 0);
    assert.ok(acknowledgedDuring > 0, 'captures were acknowledged while the backup was written');
    const manifest = JSON.parse(result.lastLine);
    t.diagnostic(
      `acknowledged before the backup: ${acknowledgedBefore.length} events, while it ran: ${acknowledgedDuring}; ` +
        `backed up: ${manifest.warehouse.events} processed, ${manifest.capture_log.events} in the capture log`,
    );
    assert.ok(manifest.warehouse.events + manifest.capture_log.events >= acknowledgedBefore.length);

    // The server went on serving, and serves everything, the captures of the backup's time included.
    const served = await allEvents(original);
    assert.equal(served.length, acknowledgedAt.size);
    const originalPersons = new Map<string, string>();
    for (const person of await allPersons(original)) for (const distinctId of person.distinct_ids) originalPersons.set(distinctId, person.uuid);

    const restoredDir = newPath('tally-restored-');
    directories.push(restoredDir);
    const restore = await cli(['restore', backup], { TALLY_DATA_DIR: restoredDir });
    assert.equal(restore.status, 0, restore.stderr);
    const restored = server(restoredDir);
    await restored.start();
    restored.personalApiKey = original.personalApiKey;
    const events = await allEvents(restored);
    const restoredUuids = new Set(events.map(([uuid]) => uuid));
    assert.equal(restoredUuids.size, events.length, 'no event twice');
    assert.equal(events.length, manifest.warehouse.events + manifest.capture_log.events);
    const missing = acknowledgedBefore.filter((uuid) => !restoredUuids.has(uuid));
    assert.deepEqual(missing, [], 'every event acknowledged before the backup began is restored');
    for (const uuid of restoredUuids) assert.ok(acknowledgedAt.has(uuid), `restored event ${uuid} was acknowledged`);

    const restoredPersons = new Map<string, string>();
    for (const person of await allPersons(restored)) for (const distinctId of person.distinct_ids) restoredPersons.set(distinctId, person.uuid);
    for (const distinctId of new Set(acknowledgedBefore.map((uuid) => distinctIdOf.get(uuid)!))) {
      assert.equal(restoredPersons.get(distinctId), originalPersons.get(distinctId), `the person of ${distinctId}`);
    }
    // Each restored event points at its person, as on the original.
    for (const [uuid, , distinctId, personId] of events) assert.equal(personId, restoredPersons.get(distinctId), `person of ${uuid}`);
  });

  test('hostile input is refused with exit code 1 and changes nothing', { skip: EMBEDDED_ONLY }, async () => {
    const original = server();
    await original.start();
    assert.equal(await postBatch(original, [{ event: 'e', distinct_id: 'd', uuid: randomUUID() }]), 200);
    const env = { TALLY_DATA_DIR: original.dataDir };

    // A backup directory that is not empty, one that is a file, one inside the data directory.
    const occupied = tempDir('tally-occupied-');
    directories.push(path.join(occupied, 'x'));
    fs.writeFileSync(path.join(occupied, 'keep.txt'), 'mine');
    for (const [target, message] of [
      [occupied, /is not empty/],
      [path.join(occupied, 'keep.txt'), /is not a directory/],
      [path.join(original.dataDir, 'inside'), /inside the data directory/],
    ] as const) {
      const result = await cli(['backup', target], env);
      assert.equal(result.status, 1, target);
      assert.match(result.stderr, message);
    }
    assert.deepEqual(fs.readdirSync(occupied), ['keep.txt']);
    assert.equal(fs.readFileSync(path.join(occupied, 'keep.txt'), 'utf8'), 'mine');

    // A relative directory is the caller's, not the server's: resolved against the CLI's working directory.
    const cwd = tempDir('tally-cwd-');
    directories.push(path.join(cwd, 'x'));
    const relative = await cli(['backup', 'relative/backup'], env, cwd);
    assert.equal(relative.status, 0, relative.stderr);
    assert.equal(JSON.parse(relative.lastLine).path, path.join(fs.realpathSync(cwd), 'relative/backup'));
    assert.ok(fs.existsSync(path.join(cwd, 'relative/backup/tally-backup.json')));

    // Restore into a data directory that is not empty: refused, the directory as it was.
    const before = fs.readdirSync(original.dataDir).sort();
    const intoUsed = await cli(['restore', path.join(cwd, 'relative/backup')], env);
    assert.equal(intoUsed.status, 1);
    assert.match(intoUsed.stderr, /is not empty: restore fills an empty one/);
    assert.deepEqual(fs.readdirSync(original.dataDir).sort(), before);

    // Restore from a directory that is not a backup, or a backup cut short: refused, nothing created.
    const target = newPath('tally-restore-target-');
    directories.push(target);
    const notBackup = await cli(['restore', occupied], { TALLY_DATA_DIR: target });
    assert.equal(notBackup.status, 1);
    assert.match(notBackup.stderr, /is not a Tally backup: it has no tally-backup\.json/);
    const broken = tempDir('tally-broken-');
    directories.push(path.join(broken, 'x'));
    fs.writeFileSync(path.join(broken, 'tally-backup.json'), '{"format":"tally-backup","version":99}');
    const newer = await cli(['restore', broken], { TALLY_DATA_DIR: target });
    assert.equal(newer.status, 1);
    assert.match(newer.stderr, /format version 99/);
    assert.equal(fs.existsSync(target), false);
    assert.equal((await cli(['restore', path.join(cwd, 'missing')], { TALLY_DATA_DIR: target })).status, 1);
    assert.equal(fs.existsSync(target), false);
  });

  test('POST /api/backup/ takes the server token of the data directory, validates the path, and is in the schema', { skip: EMBEDDED_ONLY }, async () => {
    const original = server();
    await original.start();
    const serverFile = JSON.parse(fs.readFileSync(path.join(original.dataDir, 'tally.server.json'), 'utf8'));
    assert.equal((fs.statSync(path.join(original.dataDir, 'tally.server.json')).mode & 0o777).toString(8), '600');
    const post = (body: unknown, headers: Record<string, string>) => original.request('POST', '/api/backup/', { body, headers, key: null });
    const target = backupPath();
    assert.deepEqual((await post({ path: target }, {})).body, {
      type: 'authentication_error',
      code: 'not_authenticated',
      detail: 'Authentication credentials were not provided.',
      attr: null,
    });
    const wrong = await post({ path: target }, { 'x-tally-server-token': 'guess' });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.body.code, 'authentication_failed');
    // A personal API key, even one with every scope, is not the data directory's authority.
    const withKey = await original.request('POST', '/api/backup/', { body: { path: target } });
    assert.equal(withKey.status, 401);
    const token = { 'x-tally-server-token': serverFile.token };
    const relative = await post({ path: 'backup' }, token);
    assert.equal(relative.status, 400);
    assert.equal(relative.body.type, 'validation_error');
    assert.equal(relative.body.attr, 'path');
    const missing = await post({}, token);
    assert.equal(missing.status, 400);
    assert.equal(missing.body.attr, 'path');
    const written = await post({ path: target }, token);
    assert.equal(written.status, 200, written.text);
    assert.equal(written.body.path, target);
    assert.equal(written.body.warehouse.events + written.body.capture_log.events, 0);
    assert.equal(fs.existsSync(path.join(target, 'tally-backup.json')), true);
    const again = await post({ path: target }, token);
    assert.equal(again.status, 400);
    assert.match(again.body.detail, /is not empty/);
    const schema = await original.get('/api/schema/', { key: null });
    assert.ok(schema.body.paths['/api/backup/']?.post, 'the route is documented');
  });
});

test('tally backup and restore refuse stores on PostgreSQL or ClickHouse, naming the native tools', async () => {
  const dataDir = tempDataDir();
  try {
    for (const command of ['backup', 'restore']) {
      const result = await cli([command, path.join(dataDir, 'b')], {
        DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
        CLICKHOUSE_URL: 'http://127.0.0.1:1',
        TALLY_DATA_DIR: dataDir,
      });
      assert.equal(result.status, 1, command);
      assert.match(result.stderr, /pg_dump/);
      assert.match(result.stderr, /ClickHouse with its BACKUP statement/);
    }
    assert.deepEqual(fs.readdirSync(dataDir), []);
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
