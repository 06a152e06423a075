import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { PostHog } from 'posthog-node';
import { COORDINATION_APPLICATION, CoordinatedWork, LOCK_CLASS } from '../../src/storage/catalog/process-coordination.js';
import { createPostgresDatabase, POSTGRES_SKIP_REASON } from '../support/catalogs.js';
import { spawnChdbHttpServer, type SpawnedChdbHttpServer } from '../support/clickhouse-http/spawned-server.js';
import { tempDataDir, TallyServer } from '../support/tally.js';

const PROJECT_TOKEN = 'phc_multiProcessTestToken0000000000';
const PERSONAL_API_KEY = 'phx_multiProcessTestKey000000000000000000000';
const PERSONS = '/api/projects/1/persons';

/** One deployment: PostgreSQL and a ClickHouse database of its own, and its Tally processes. */
interface Deployment {
  databaseUrl: string;
  servers: TallyServer[];
  dispose(): Promise<void>;
}

let clickhouse: SpawnedChdbHttpServer | null = null;
let clickhouseDirectory = '';
const disposals: (() => Promise<void>)[] = [];

async function deployment(processes: number): Promise<Deployment> {
  const database = await createPostgresDatabase();
  const name = `tally_mp_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const created = await fetch(clickhouse!.url, { method: 'POST', body: `CREATE DATABASE ${name}` });
  assert.equal(created.status, 200, await created.text());
  const env = {
    DATABASE_URL: database.url,
    CLICKHOUSE_URL: clickhouse!.url,
    CLICKHOUSE_DATABASE: name,
    TALLY_PROJECT_TOKEN: PROJECT_TOKEN,
    TALLY_PERSONAL_API_KEY: PERSONAL_API_KEY,
  };
  const servers = Array.from({ length: processes }, () => new TallyServer(tempDataDir('tally-mp-'), { ...env }));
  // Started together: start-up (migrations, bootstrap) must take one process at a time.
  await Promise.all(servers.map((server) => server.start()));
  for (const server of servers) {
    server.projectToken = PROJECT_TOKEN;
    server.personalApiKey = PERSONAL_API_KEY;
  }
  const dispose = async () => {
    for (const server of servers) await server.stop();
    for (const server of servers) fs.rmSync(server.dataDir, { recursive: true, force: true });
    await database.drop();
    await fetch(clickhouse!.url, { method: 'POST', body: `DROP DATABASE IF EXISTS ${name}` });
  };
  disposals.push(dispose);
  return { databaseUrl: database.url, servers, dispose };
}

/** The process leading the consumption of the capture log: the holder of its advisory lock. */
async function consumingPid(databaseUrl: string): Promise<number | null> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ application_name: string }>(
      `SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
       WHERE l.locktype = 'advisory' AND l.granted AND l.classid = $1 AND l.objid = $2
         AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
      [LOCK_CLASS, CoordinatedWork.Ingestion],
    );
    const name = rows[0]?.application_name;
    return name?.startsWith(COORDINATION_APPLICATION) ? Number(name.slice(COORDINATION_APPLICATION.length)) : null;
  } finally {
    await client.end();
  }
}

function clientOf(server: TallyServer): PostHog {
  const client = new PostHog(PROJECT_TOKEN, { host: server.url, flushAt: 20, flushInterval: 0 });
  client.on('error', (error) => assert.fail(`posthog-node: ${String(error)}`));
  return client;
}

async function hogql(server: TallyServer, query: string): Promise<unknown[][]> {
  const body = await server.bodyOf('POST', '/api/projects/1/query/', 200, { body: { query: { kind: 'HogQLQuery', query } } });
  return body.results as unknown[][];
}

/** Every event's count and the count of distinct uuids, as `server` answers right now. */
async function eventCounts(server: TallyServer): Promise<{ events: number; uuids: number }> {
  const [[events, uuids]] = (await hogql(server, 'select count(), uniqExact(uuid) from events')) as [[number, number]];
  return { events: Number(events), uuids: Number(uuids) };
}

/**
 * The persons as `server` lists them: distinct ids and properties, in a stable order; without
 * the uuid of the event that created each, which posthog-node draws anew for every run.
 */
async function personsOf(server: TallyServer): Promise<{ distinct_ids: string[]; properties: Record<string, unknown> }[]> {
  const body = await server.bodyOf('GET', `${PERSONS}/?limit=1000`);
  return (body.results as { distinct_ids: string[]; properties: Record<string, unknown> }[])
    .map((person) => {
      const { $creator_event_uuid: creator, ...properties } = person.properties;
      assert.equal(typeof creator, 'string');
      return { distinct_ids: [...person.distinct_ids].sort(), properties };
    })
    .sort((a, b) => a.distinct_ids[0]!.localeCompare(b.distinct_ids[0]!));
}

async function personId(server: TallyServer, distinctId: string): Promise<string> {
  const body = await server.bodyOf('GET', `${PERSONS}/?distinct_id=${encodeURIComponent(distinctId)}`);
  assert.equal(body.results.length, 1, `one person has ${distinctId}`);
  return body.results[0].id as string;
}

/**
 * The same traffic, in phases, through `servers` (one process or several): anonymous events
 * spread over the processes, identifies and aliases arriving at different ones, person writes
 * through the API of yet another, then more events. After each phase a process other than the
 * ones that took it answers for every acknowledged event (read-your-writes across processes).
 */
async function sendTraffic(servers: TallyServer[]): Promise<number> {
  const at = (index: number) => servers[index % servers.length]!;
  const clients = servers.map(clientOf);
  const flushAll = () => Promise.all(clients.map((client) => client.flush()));
  const clientAt = (index: number) => clients[index % clients.length]!;
  let sent = 0;
  for (let index = 0; index < 90; index++) {
    clientAt(index).capture({ distinctId: `anon-${index}`, event: '$pageview', properties: { $current_url: `/page/${index % 7}`, n: index } });
    sent += 1;
  }
  await flushAll();
  assert.deepEqual(await eventCounts(at(1)), { events: sent, uuids: sent }, 'phase 1, read on another process');

  for (let index = 0; index < 30; index++) {
    clientAt(index + 1).identify({
      distinctId: `user-${index}`,
      properties: { $set: { plan: index % 2 ? 'pro' : 'free' }, $anon_distinct_id: `anon-${index}` },
    });
    sent += 1;
  }
  await flushAll();
  for (let index = 0; index < 30; index++) {
    clientAt(index + 2).alias({ distinctId: `user-${index}`, alias: `anon-${index + 30}` });
    sent += 1;
  }
  await flushAll();
  assert.deepEqual(await eventCounts(at(2)), { events: sent, uuids: sent }, 'phase 2, read on another process');

  const patched = await at(2).patch(`${PERSONS}/${await personId(at(2), 'user-0')}/`, { properties: { tier: 'gold' } });
  assert.equal(patched.status, 200, patched.text);
  assert.equal((await at(0).delete(`${PERSONS}/${await personId(at(0), 'anon-89')}/`)).status, 204);
  for (let index = 0; index < 60; index++) {
    clientAt(index).capture({ distinctId: `user-${index % 10}`, event: 'order placed', properties: { $set: { last_order: index % 10 }, amount: index } });
    sent += 1;
  }
  await flushAll();
  assert.deepEqual(await eventCounts(at(0)), { events: sent, uuids: sent }, 'phase 3, read on another process');
  await Promise.all(clients.map((client) => client.shutdown()));
  return sent;
}

describe('several Tally processes on one PostgreSQL and one ClickHouse', { skip: POSTGRES_SKIP_REASON ?? false }, () => {
  before(async () => {
    clickhouseDirectory = tempDataDir('tally-mp-clickhouse-');
    clickhouse = await spawnChdbHttpServer(clickhouseDirectory);
  });

  after(async () => {
    for (const dispose of disposals.splice(0)) await dispose();
    await clickhouse?.stop();
    fs.rmSync(clickhouseDirectory, { recursive: true, force: true });
  });

  test('three processes store every event once, and their persons equal one process given the same traffic', async () => {
    const single = await deployment(1);
    const singleSent = await sendTraffic(single.servers);
    const expected = await personsOf(single.servers[0]!);
    await single.dispose();

    const three = await deployment(3);
    const leader = await consumingPid(three.databaseUrl);
    assert.ok(
      three.servers.some((server) => server.pid === leader),
      'one of the three consumes the log',
    );
    const sent = await sendTraffic(three.servers);
    assert.equal(sent, singleSent);
    for (const server of three.servers) {
      assert.deepEqual(await eventCounts(server), { events: sent, uuids: sent }, 'every event stored once, seen by every process');
      assert.deepEqual(await personsOf(server), expected, 'persons as one process makes them');
    }
    const tiered = expected.find((person) => person.distinct_ids.includes('user-0'))!;
    assert.equal(tiered.properties.tier, 'gold', 'the API write stands beside the events');
    assert.deepEqual(tiered.distinct_ids, ['anon-0', 'anon-30', 'user-0'], 'identify and alias merged');
    assert.equal(
      expected.some((person) => person.distinct_ids.includes('anon-89')),
      false,
      'the deleted person is gone',
    );
  });

  test('kill -9 of the consuming process under load: no acknowledged event lost or stored twice, another consumes within 10 s', async (t) => {
    const { databaseUrl, servers } = await deployment(3);
    const leaderPid = await consumingPid(databaseUrl);
    const leader = servers.find((server) => server.pid === leaderPid)!;
    assert.ok(leader, `a process consumes the log: ${leaderPid} of ${servers.map((server) => server.pid)}`);
    const acknowledged = new Set<string>();
    let sequence = 0;
    let sending = true;
    const sender = async (server: TallyServer) => {
      while (sending) {
        const batch = Array.from({ length: 25 }, () => {
          sequence += 1;
          return {
            event: 'load',
            distinct_id: `loader-${sequence % 40}`,
            uuid: `01900000-0000-7000-8000-${String(sequence).padStart(12, '0')}`,
            properties: { $set: { last: sequence } },
          };
        });
        const answer = await fetch(`${server.url}/batch/`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ api_key: PROJECT_TOKEN, batch }),
        }).catch(() => null);
        if (answer?.status === 200) for (const event of batch) acknowledged.add(event.uuid);
        if (!answer && server === leader) return;
      }
    };
    const senders = servers.map(sender);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await leader.kill();
    const killedAt = Date.now();
    let takenOverAfter = Number.POSITIVE_INFINITY;
    while (Date.now() - killedAt < 15_000) {
      const pid = await consumingPid(databaseUrl);
      if (pid !== null && pid !== leaderPid) {
        takenOverAfter = Date.now() - killedAt;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await new Promise((resolve) => setTimeout(resolve, 1500));
    sending = false;
    await Promise.all(senders);
    assert.ok(takenOverAfter <= 10_000, `another process consumes ${takenOverAfter} ms after the kill`);

    const survivor = servers.find((server) => server !== leader)!;
    const stored = (await hogql(survivor, "select uuid, count() from events where event = 'load' group by uuid limit 50000")) as [string, number][];
    const twice = stored.filter(([, count]) => Number(count) > 1).map(([uuid]) => uuid);
    assert.deepEqual(twice, [], 'no event stored twice');
    const storedUuids = new Set(stored.map(([uuid]) => uuid));
    const lost = [...acknowledged].filter((uuid) => !storedUuids.has(uuid));
    assert.deepEqual(lost, [], 'every acknowledged event stored');
    assert.ok(acknowledged.size > 500, `the load was real: ${acknowledged.size} events acknowledged`);
    t.diagnostic(`${acknowledged.size} events acknowledged, all stored once; another process consumed ${takenOverAfter} ms after the kill`);
  });
});
