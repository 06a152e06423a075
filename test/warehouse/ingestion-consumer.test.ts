import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { bootstrapIfEmpty } from '../../src/bootstrap.js';
import { loadConfig } from '../../src/config.js';
import { createContext, type AppContext } from '../../src/context.js';
import { DefinitionRecorder } from '../../src/definitions/definition-recorder.js';
import { FileCaptureLog } from '../../src/capture/spool/file-capture-log.js';
import { openCatalog, type Catalog } from '../../src/storage/catalog/catalog.js';
import { ChdbWarehouse } from '../../src/storage/warehouse/chdb-warehouse.js';
import { migrateWarehouse } from '../../src/storage/warehouse/migrations.js';
import type { WarehouseColumn } from '../../src/storage/warehouse/row-binary.js';
import type { QueryParams, Warehouse } from '../../src/storage/warehouse/warehouse.js';
import { tempDataDir } from '../support/tally.js';


/** The embedded warehouse, except that the next events insert fails when asked to, after `failAfterMs`. */
class FailingEventsInsert implements Warehouse {
  readonly kind = 'chdb' as const;
  failNext = false;
  failAfterMs = 0;
  failures = 0;

  constructor(private readonly stored: ChdbWarehouse) {}

  query<T>(sql: string, params?: QueryParams): Promise<T[]> {
    return this.stored.query<T>(sql, params);
  }

  command(sql: string, params?: QueryParams): Promise<void> {
    return this.stored.command(sql, params);
  }

  insert(table: string, rows: readonly object[]): Promise<void> {
    return this.stored.insert(table, rows);
  }

  insertJsonEachRow(table: string, text: string): Promise<void> {
    return this.stored.insertJsonEachRow(table, text);
  }

  storedKeys(table: string, columns: readonly WarehouseColumn[], keys: readonly (readonly unknown[])[]): Promise<string[][]> {
    return this.stored.storedKeys(table, columns, keys);
  }

  async insertRowBinary(table: string, columns: readonly WarehouseColumn[], rows: Uint8Array): Promise<void> {
    if (table === 'events' && this.failNext) {
      this.failNext = false;
      this.failures += 1;
      await new Promise((resolve) => setTimeout(resolve, this.failAfterMs));
      throw new Error('injected: the warehouse refused the insert');
    }
    return this.stored.insertRowBinary(table, columns, rows);
  }

  close(): Promise<void> {
    return this.stored.close();
  }
}

function request(token: string, batch: object[]) {
  return {
    body: Buffer.from(JSON.stringify({ api_key: token, batch })),
    query: {},
    contentType: 'application/json',
    contentEncoding: undefined,
    limitBytes: 20 * 1024 * 1024,
    ip: null,
    now: Date.now(),
  };
}

/** What a test works with: the stores on a temporary data directory, and the context over them. */
interface ConsumerStores<W extends Warehouse> {
  catalog: Catalog;
  warehouse: W;
  captureLog: FileCaptureLog;
  context: AppContext;
  projectToken: string;
  projectId: number;
}

/** Runs `work` on fresh stores (the warehouse as `warehouseOf` wraps it), then closes and removes them. */
async function withStores<W extends Warehouse>(warehouseOf: (stored: ChdbWarehouse) => W, work: (stores: ConsumerStores<W>) => Promise<void>): Promise<void> {
  const directory = tempDataDir('tally-consumer-');
  const config = loadConfig({ TALLY_DATA_DIR: directory, LOG_LEVEL: 'error' });
  const catalog = await openCatalog(config);
  const warehouse = warehouseOf(new ChdbWarehouse(`${directory}/warehouse`));
  const captureLog = await FileCaptureLog.open(`${directory}/capture-log`);
  try {
    await migrateWarehouse(warehouse);
    const context = createContext(config, catalog, warehouse, captureLog);
    const { projectToken, projectId } = (await bootstrapIfEmpty(context))!;
    await work({ catalog, warehouse, captureLog, context, projectToken, projectId });
  } finally {
    await captureLog.close();
    await warehouse.close();
    await catalog.close();
    fs.rmSync(directory, { recursive: true, force: true });
  }
}

test('acknowledged events survive a failed warehouse insert: the next pass stores each exactly once, with their persons', () =>
  withStores((stored) => new FailingEventsInsert(stored), async ({ catalog, warehouse, captureLog, context, projectToken: token }) => {
    const originalError = console.error;
    console.error = () => undefined;
    try {
      warehouse.failNext = true;
      const first = [
        { event: '$pageview', distinct_id: 'anon-1', uuid: '0190a3f2-0000-7000-8000-000000000001' },
        { event: '$identify', distinct_id: 'user-1', uuid: '0190a3f2-0000-7000-8000-000000000002', properties: { $anon_distinct_id: 'anon-1', $set: { plan: 'pro' } } },
      ];
      const second = [{ event: 'order placed', distinct_id: 'user-1', uuid: '0190a3f2-0000-7000-8000-000000000003', properties: { $set: { plan: 'team' } } }];
      await context.capture.capture(request(token, first));
      await context.capture.capture(request(token, second));
      await context.ingestion.flush().catch(() => undefined);
      await context.ingestion.flush();
      assert.equal(warehouse.failures, 1);

      // An SDK retry of an acknowledged request changes nothing.
      await context.capture.capture(request(token, second));
      await context.ingestion.flush();

      const events = await warehouse.query<{ uuid: string; person_id: string }>('SELECT toString(uuid) AS uuid, toString(person_id) AS person_id FROM events ORDER BY uuid');
      assert.deepEqual(events.map((row) => row.uuid), first.map((event) => event.uuid).concat(second[0]!.uuid));
      const persons = await catalog.db.selectFrom('persons').select(['uuid', 'properties', 'is_identified']).execute();
      assert.equal(persons.length, 1);
      assert.deepEqual(JSON.parse(persons[0]!.properties).plan, 'team');
      assert.equal(Number(persons[0]!.is_identified), 1);
      assert.deepEqual(events.map((row) => row.person_id), [persons[0]!.uuid, persons[0]!.uuid, persons[0]!.uuid]);
      const links = await catalog.db.selectFrom('person_distinct_ids').select('distinct_id').orderBy('id').execute();
      assert.deepEqual(links.map((link) => link.distinct_id), ['anon-1', 'user-1']);
      assert.deepEqual(await captureLog.read(100, 0, Number.MAX_SAFE_INTEGER), [], 'every entry is removed once stored');
    } finally {
      console.error = originalError;
    }
  }));

test('log entries stay until their definitions are recorded: a failed recording is made by the next pass', () =>
  withStores((stored) => stored, async ({ catalog, warehouse, captureLog, context, projectToken: token }) => {
    const record = DefinitionRecorder.prototype.record;
    DefinitionRecorder.prototype.record = () => Promise.reject(new Error('injected: the catalog refused the definitions'));
    try {
      await context.capture.capture(request(token, [{ event: 'order placed', distinct_id: 'user-1', uuid: '0190a3f2-0000-7000-8000-000000000001', properties: { amount: 5 } }]));
      await assert.rejects(context.ingestion.flush(), /injected/);
      assert.equal((await captureLog.read(100, 0, Number.MAX_SAFE_INTEGER)).length, 1, 'the entry is kept');

      DefinitionRecorder.prototype.record = record;
      await context.ingestion.flush();
      const definitions = await catalog.db.selectFrom('event_definitions').select('name').execute();
      assert.deepEqual(definitions.map((row) => row.name), ['order placed']);
      const properties = await catalog.db.selectFrom('property_definitions').select(['name', 'property_type']).where('name', '=', 'amount').execute();
      assert.deepEqual(properties, [{ name: 'amount', property_type: 'Numeric' }]);
      assert.equal((await warehouse.query('SELECT uuid FROM events')).length, 1, 'stored once');
      assert.deepEqual(await captureLog.read(100, 0, Number.MAX_SAFE_INTEGER), []);
    } finally {
      DefinitionRecorder.prototype.record = record;
    }
  }));

test('a person changed through the API between batches is what the next batch builds on', () =>
  withStores((stored) => stored, async ({ catalog, warehouse, context, projectToken, projectId }) => {
      const person = async () => (await catalog.db.selectFrom('persons').select(['uuid', 'properties']).execute()).map((row) => ({ ...row, properties: JSON.parse(row.properties) }));
      await context.capture.capture(request(projectToken, [{ event: 'signed up', distinct_id: 'user-1', uuid: '0190a3f2-0000-7000-8000-000000000001', properties: { $set: { plan: 'free', seats: 1 } } }]));
      await context.ingestion.flush();
      const [created] = await person();

      const project = (await context.projectRepository.findById(projectId))!;
      const user = await catalog.db.selectFrom('users').select('id').executeTakeFirstOrThrow();
      const key = { kind: 'uuid', uuid: created!.uuid } as const;
      await context.persons.writes.deleteProperty(project, key, 'seats', { userId: Number(user.id) });
      await context.persons.writes.setProperties(project, key, { plan: 'pro' }, { userId: Number(user.id) });

      await context.capture.capture(request(projectToken, [{ event: 'color picked', distinct_id: 'user-1', uuid: '0190a3f2-0000-7000-8000-000000000002', properties: { $set: { color: 'red' } } }]));
      await context.ingestion.flush();
      assert.deepEqual(await person(), [{ uuid: created!.uuid, properties: { plan: 'pro', color: 'red', $creator_event_uuid: '0190a3f2-0000-7000-8000-000000000001' } }]);
      const [row] = await warehouse.query<{ person_properties: string }>("SELECT person_properties FROM events WHERE event = 'color picked'");
      assert.deepEqual(JSON.parse(row!.person_properties), { plan: 'pro', color: 'red', $creator_event_uuid: '0190a3f2-0000-7000-8000-000000000001' });
  }));

test('without reads, a full batch is processed at once and fewer events after their fill time', () =>
  withStores((stored) => stored, async ({ warehouse, captureLog, context, projectToken }) => {
    const events = (sent: number) =>
      Array.from({ length: 100 }, (_, index) => ({ event: 'tick', distinct_id: `user-${index}`, uuid: `0190a3f2-0000-7000-8000-${String(sent * 100 + index).padStart(12, '0')}` }));
    // Counted as held in memory, so no payload is read from a segment the consumer may be removing.
    const held = { events: new Uint8Array() };
    const logged = async () => (await captureLog.read(1_000_000, 0, Number.MAX_SAFE_INTEGER, () => held)).length;
    const stored = async () => Number((await warehouse.query<{ n: string }>('SELECT count() AS n FROM events'))[0]!.n);
    // Nothing here flushes: only the passes that arriving captures and the fill time start.
    const processed = async () => {
      const deadline = Date.now() + 30_000;
      while ((await logged()) > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(await logged(), 0, 'every entry is processed and removed');
    };
    for (let sent = 0; sent < 200; sent++) await context.capture.capture(request(projectToken, events(sent)));
    await processed();
    assert.equal(await stored(), 20_000);
    for (let sent = 200; sent < 205; sent++) await context.capture.capture(request(projectToken, events(sent)));
    await processed();
    assert.equal(await stored(), 20_500);
  }));

test('a person deleted through the API between batches is not found by the next batch: its distinct id gets a new person', () =>
  withStores((stored) => stored, async ({ catalog, context, projectToken, projectId }) => {
    const persons = () => catalog.db.selectFrom('persons').select(['id', 'properties']).orderBy('id').execute();
    await context.capture.capture(request(projectToken, [{ event: 'signed up', distinct_id: 'user-1', uuid: '0190a3f2-0000-7000-8000-000000000001', properties: { $set: { plan: 'free' } } }]));
    await context.ingestion.flush();
    const [created] = await persons();

    const project = (await context.projectRepository.findById(projectId))!;
    const user = await catalog.db.selectFrom('users').select('id').executeTakeFirstOrThrow();
    await context.persons.writes.delete(project, { kind: 'id', id: Number(created!.id) }, false, { userId: Number(user.id) });

    await context.capture.capture(request(projectToken, [{ event: 'came back', distinct_id: 'user-1', uuid: '0190a3f2-0000-7000-8000-000000000002', properties: { $set: { color: 'red' } } }]));
    await context.ingestion.flush();
    const [again] = await persons();
    assert.deepEqual(JSON.parse(again!.properties), { color: 'red', $creator_event_uuid: '0190a3f2-0000-7000-8000-000000000002' });
    assert.notEqual(Number(again!.id), Number(created!.id), 'a new catalog row');
    const links = await catalog.db.selectFrom('person_distinct_ids').select('distinct_id').execute();
    assert.deepEqual(links.map((link) => link.distinct_id), ['user-1']);
  }));

test('a store that fails after the next batch committed fails that batch\'s store too: the next pass stores every event once', () =>
  withStores((stored) => new FailingEventsInsert(stored), async ({ warehouse, captureLog, context, projectToken }) => {
    const originalError = console.error;
    console.error = () => undefined;
    try {
      // The first batch's insert fails only once the second batch (its last 100 events) has committed.
      warehouse.failNext = true;
      warehouse.failAfterMs = 1500;
      const events = (sent: number) =>
        Array.from({ length: 100 }, (_, index) => ({ event: 'tick', distinct_id: `user-${index}`, uuid: `0190a3f2-0000-7000-8000-${String(sent * 100 + index).padStart(12, '0')}` }));
      for (let sent = 0; sent < 201; sent++) await context.capture.capture(request(projectToken, events(sent)));
      await context.ingestion.flush().catch(() => undefined);
      await context.ingestion.flush();
      assert.equal(warehouse.failures, 1);
      const [row] = await warehouse.query<{ n: number; uuids: number }>('SELECT count() AS n, uniqExact(uuid) AS uuids FROM events');
      assert.deepEqual(row, { n: 20100, uuids: 20100 });
      assert.deepEqual(await captureLog.read(100, 0, Number.MAX_SAFE_INTEGER), [], 'every entry is removed once stored');
    } finally {
      console.error = originalError;
    }
  }));
