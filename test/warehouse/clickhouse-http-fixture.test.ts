import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { createClient } from '@clickhouse/client';
import { EVENT_ROW_COLUMNS, EventRowBuffer } from '../../src/capture/event-row-buffer.js';
import { ChdbWarehouse } from '../../src/storage/warehouse/chdb-warehouse.js';
import { ClickhouseWarehouse } from '../../src/storage/warehouse/clickhouse-warehouse.js';
import { migrateWarehouse } from '../../src/storage/warehouse/migrations.js';
import type { Warehouse } from '../../src/storage/warehouse/warehouse.js';
import { spawnChdbHttpServer, type SpawnedChdbHttpServer } from '../support/clickhouse-http/spawned-server.js';
import { eventRowFixture } from '../support/event-rows.js';
import { tempDataDir } from '../support/tally.js';

/**
 * The ClickHouse-compatible test server: Tally's ClickHouse-server warehouse, through it, gives
 * what the embedded warehouse gives for the same statements, values with every escape included.
 */
const directory = tempDataDir('tally-ch-http-');
let server: SpawnedChdbHttpServer;

before(async () => {
  server = await spawnChdbHttpServer(path.join(directory, 'server'));
  const admin = createClient({ url: server.url });
  await admin.command({ query: 'CREATE DATABASE tally_a' });
  await admin.command({ query: 'CREATE DATABASE tally_b' });
  await admin.close();
});
after(async () => {
  await server.stop();
  fs.rmSync(directory, { recursive: true, force: true });
});

const HOSTILE = ["it's", 'back\\slash', 'tab\there', 'line\nbreak', 'quote "x"', 'ü-ñ-😀', '\\N', '{p_0:String}', ''];

/** The same writes and reads on a warehouse; returns what the reads answered. */
async function exercise(warehouse: Warehouse): Promise<unknown[]> {
  await migrateWarehouse(warehouse);
  const buffer = new EventRowBuffer();
  for (const [index, text] of HOSTILE.entries()) {
    buffer.add(
      eventRowFixture({
        uuid: `0190a3f2-0000-7000-8000-00000000000${index}`,
        event: text,
        distinct_id: `d-${index}`,
        properties: JSON.stringify({ text, n: index }),
        timestamp: Date.UTC(2024, 0, 1, 0, 0, index) * 1000 + 123_456,
      }),
    );
  }
  await warehouse.insertRowBinary('events', EVENT_ROW_COLUMNS, buffer.encoded());
  await warehouse.insertJsonEachRow(
    'tally_migrations',
    HOSTILE.map((text, index) => JSON.stringify({ version: 100 + index, name: text, applied_at: '2024-01-01 00:00:00.000' })).join('\n'),
  );
  await warehouse.insert(
    'tally_migrations',
    HOSTILE.map((text, index) => ({ version: 200 + index, name: `${text}!`, applied_at: '2024-01-02 00:00:00.000' })),
  );
  const answers: unknown[] = [];
  answers.push(
    await warehouse.query(
      `SELECT event, distinct_id, JSONExtractString(properties, 'text') AS text, toString(timestamp) AS at FROM events
       WHERE team_id = {team:Int64} AND event IN {events:Array(String)} ORDER BY distinct_id`,
      { team: 7, events: HOSTILE.slice(0, 5) },
    ),
  );
  for (const text of HOSTILE) {
    answers.push(await warehouse.query('SELECT toUInt32(count()) AS n, any(name) AS found FROM tally_migrations WHERE name = {name:String}', { name: text }));
  }
  answers.push(
    await warehouse.queryColumns('SELECT {a:Array(String)} AS a, {n:Nullable(Int64)} AS n, {u:UUID} AS u, 1.5 AS f', {
      a: HOSTILE,
      n: null,
      u: '0190a3f2-0000-7000-8000-000000000001',
    }),
  );
  answers.push(
    await warehouse.storedKeys(
      'event_uuids',
      [
        { name: 'team_id', type: 'Int64' },
        { name: 'uuid', type: 'UUID' },
      ],
      [
        [7, '0190a3f2-0000-7000-8000-000000000001'],
        [7, '0190a3f2-0000-7000-8000-0000000000ff'],
      ],
    ),
  );
  await warehouse.command('ALTER TABLE tally_migrations DELETE WHERE version >= {from:UInt32} SETTINGS mutations_sync = 2', { from: 200 });
  answers.push(await warehouse.query('SELECT toUInt32(count()) AS n FROM tally_migrations WHERE version >= 100'));
  return answers;
}

test('through the test server, the ClickHouse-server warehouse answers what the embedded one answers', async () => {
  const embedded = new ChdbWarehouse(path.join(directory, 'embedded'));
  const served = new ClickhouseWarehouse(server.url, 'tally_a');
  try {
    const expected = await exercise(embedded);
    assert.deepEqual(await exercise(served), expected);
    // The events came back with every escape intact.
    assert.deepEqual(
      (expected[0] as { event: string }[]).map((row) => row.event),
      HOSTILE.slice(0, 5),
    );
    assert.deepEqual(
      expected.slice(1, 1 + HOSTILE.length),
      HOSTILE.map((found) => [{ n: 1, found }]),
    );
  } finally {
    await embedded.close();
    await served.close();
  }
});

test('databases are apart, and failures answer with ClickHouse’s code and name', async () => {
  const other = new ClickhouseWarehouse(server.url, 'tally_b');
  try {
    assert.deepEqual(
      await other.query("SELECT count() AS n FROM system.tables WHERE database = currentDatabase() AND name = 'events'"),
      [{ n: '0' }],
      'quoted, as a server quotes 64-bit integers in JSON',
    );
    await assert.rejects(other.query('SELEC 1'), (error: Error & { code?: string; type?: string }) => {
      assert.equal(error.code, '62');
      assert.equal(error.type, 'SYNTAX_ERROR');
      return true;
    });
    await assert.rejects(other.query('SELECT * FROM events'), (error: Error & { code?: string; type?: string }) => {
      assert.equal(error.code, '60');
      assert.equal(error.type, 'UNKNOWN_TABLE');
      return true;
    });
    // A failure leaves nothing behind for the next statement.
    assert.deepEqual(await other.query('SELECT 1 AS one'), [{ one: 1 }]);
    const missing = new ClickhouseWarehouse(server.url, 'no_such_database');
    await assert.rejects(missing.query('SELECT 1'), (error: Error & { type?: string }) => error.type === 'UNKNOWN_DATABASE');
    await missing.close();
  } finally {
    await other.close();
  }
});
