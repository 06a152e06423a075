import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { bootstrapIfEmpty } from '../../src/bootstrap.js';
import { loadConfig } from '../../src/config.js';
import { buildApp } from '../../src/app.js';
import { createContext, type AppContext } from '../../src/context.js';
import { DefinitionRecorder } from '../../src/definitions/definition-recorder.js';
import { FileCaptureLog } from '../../src/capture/spool/file-capture-log.js';
import { openCatalog, type Catalog } from '../../src/storage/catalog/catalog.js';
import { SoleProcess } from '../../src/storage/catalog/process-coordination.js';
import { PersonRepository } from '../../src/persons/person-repository.js';
import { ChdbWarehouse } from '../../src/storage/warehouse/chdb-warehouse.js';
import { migrateWarehouse } from '../../src/storage/warehouse/migrations.js';
import { RowBinaryWriter, type WarehouseColumn } from '../../src/storage/warehouse/row-binary.js';
import type { QueryParams, TypedRows, Warehouse } from '../../src/storage/warehouse/warehouse.js';
import { WarehouseLayout } from '../../src/storage/warehouse/warehouse-layout.js';
import { tempDataDir } from '../support/tally.js';

/**
 * The embedded warehouse, except that the next `failNext` events inserts fail (with `error()`,
 * after `failAfterMs`), and that every events insert holding `refusedUuid` fails, as a warehouse
 * refusing one row does.
 */
class FaultyWarehouse implements Warehouse {
  readonly kind = 'chdb' as const;
  readonly layout = WarehouseLayout.SINGLE_NODE;
  failNext = 0;
  failAfterMs = 0;
  failures = 0;
  error: () => Error = () => new Error('injected: the warehouse refused the insert');
  refusedUuid: string | null = null;
  refusals = 0;
  /** Events inserts never finish, as on a warehouse that stopped answering mid-insert. */
  hang = false;

  constructor(private readonly stored: ChdbWarehouse) {}

  query<T>(sql: string, params?: QueryParams): Promise<T[]> {
    return this.stored.query<T>(sql, params);
  }

  queryColumns(sql: string, params?: QueryParams): Promise<TypedRows> {
    return this.stored.queryColumns(sql, params);
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

  async insertRowBinary(table: string, columns: readonly WarehouseColumn[], rows: readonly Uint8Array[]): Promise<void> {
    if (table === 'events' && this.hang) return new Promise<void>(() => undefined);
    if (table === 'events' && this.failNext > 0) {
      this.failNext -= 1;
      this.failures += 1;
      await new Promise((resolve) => setTimeout(resolve, this.failAfterMs));
      throw this.error();
    }
    if (table === 'events' && this.refusedUuid !== null && Buffer.concat(rows).includes(encodedUuid(this.refusedUuid))) {
      this.refusals += 1;
      throw new Error('Code: 117. DB::Exception: injected: the warehouse cannot take this row. (INCORRECT_DATA)');
    }
    return this.stored.insertRowBinary(table, columns, rows);
  }

  close(): Promise<void> {
    return this.stored.close();
  }
}

/** A UUID as an events row holds it in RowBinary. */
function encodedUuid(uuid: string): Buffer {
  const writer = new RowBinaryWriter();
  writer.uuid(uuid);
  return Buffer.from(writer.bytes());
}

/** An error of a connection the warehouse did not answer, as the HTTP client reports it. */
function connectionRefused(): Error {
  return Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8123'), { code: 'ECONNREFUSED' });
}

/** Waits until the log holds nothing (counting held entries without reading their payload). */
async function logEmptied(captureLog: FileCaptureLog, withinMs = 30_000): Promise<void> {
  const held = { events: new Uint8Array() };
  const logged = async () => (await captureLog.read(1_000_000, 0, Number.MAX_SAFE_INTEGER, () => held)).length;
  const deadline = Date.now() + withinMs;
  while ((await logged()) > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(await logged(), 0, 'every entry is processed and removed');
}

/** Runs `work` with console.error silenced: the consumer reports the failures the test injects. */
async function quietly(work: () => Promise<void>): Promise<void> {
  const originalError = console.error;
  console.error = () => undefined;
  try {
    await work();
  } finally {
    console.error = originalError;
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
async function withStores<W extends Warehouse>(
  warehouseOf: (stored: ChdbWarehouse) => W,
  work: (stores: ConsumerStores<W>) => Promise<void>,
  env: Record<string, string> = {},
): Promise<void> {
  const directory = tempDataDir('tally-consumer-');
  const config = loadConfig({ TALLY_DATA_DIR: directory, LOG_LEVEL: 'error', ...env });
  const catalog = await openCatalog(config);
  const warehouse = warehouseOf(new ChdbWarehouse(`${directory}/warehouse`));
  const captureLog = await FileCaptureLog.open(`${directory}/capture-log`);
  try {
    await migrateWarehouse(warehouse);
    const context = createContext(config, catalog, warehouse, captureLog, new SoleProcess());
    const { projectToken, projectId } = (await bootstrapIfEmpty(context))!;
    try {
      await work({ catalog, warehouse, captureLog, context, projectToken, projectId });
    } finally {
      await context.ingestion.close(10_000);
    }
  } finally {
    await captureLog.close();
    await warehouse.close();
    await catalog.close();
    fs.rmSync(directory, { recursive: true, force: true });
  }
}

test('acknowledged events survive a failed warehouse insert: the next pass stores each exactly once, with their persons', () =>
  withStores(
    (stored) => new FaultyWarehouse(stored),
    async ({ catalog, warehouse, captureLog, context, projectToken: token }) =>
      quietly(async () => {
        warehouse.failNext = 1;
        const first = [
          { event: '$pageview', distinct_id: 'anon-1', uuid: '0190a3f2-0000-7000-8000-000000000001' },
          {
            event: '$identify',
            distinct_id: 'user-1',
            uuid: '0190a3f2-0000-7000-8000-000000000002',
            properties: { $anon_distinct_id: 'anon-1', $set: { plan: 'pro' } },
          },
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

        const events = await warehouse.query<{ uuid: string; person_id: string }>(
          'SELECT toString(uuid) AS uuid, toString(person_id) AS person_id FROM events ORDER BY uuid',
        );
        assert.deepEqual(
          events.map((row) => row.uuid),
          first.map((event) => event.uuid).concat(second[0]!.uuid),
        );
        const persons = await catalog.db.selectFrom('persons').select(['uuid', 'properties', 'is_identified']).execute();
        assert.equal(persons.length, 1);
        assert.deepEqual(JSON.parse(persons[0]!.properties).plan, 'team');
        assert.equal(Number(persons[0]!.is_identified), 1);
        assert.deepEqual(
          events.map((row) => row.person_id),
          [persons[0]!.uuid, persons[0]!.uuid, persons[0]!.uuid],
        );
        const links = await catalog.db.selectFrom('person_distinct_ids').select('distinct_id').orderBy('id').execute();
        assert.deepEqual(
          links.map((link) => link.distinct_id),
          ['anon-1', 'user-1'],
        );
        assert.deepEqual(await captureLog.read(100, 0, Number.MAX_SAFE_INTEGER), [], 'every entry is removed once stored');
      }),
  ));

test('log entries stay until their definitions are recorded: a failed recording is made by the next pass', () =>
  withStores(
    (stored) => stored,
    async ({ catalog, warehouse, captureLog, context, projectToken: token }) =>
      quietly(async () => {
        const record = DefinitionRecorder.prototype.record;
        // A busy catalog: unavailable for a while, not refusing the events.
        DefinitionRecorder.prototype.record = () =>
          Promise.reject(Object.assign(new Error('injected: the catalog refused the definitions'), { code: 'SQLITE_BUSY' }));
        try {
          await context.capture.capture(
            request(token, [{ event: 'order placed', distinct_id: 'user-1', uuid: '0190a3f2-0000-7000-8000-000000000001', properties: { amount: 5 } }]),
          );
          await assert.rejects(context.ingestion.flush(), /injected/);
          assert.equal((await captureLog.read(100, 0, Number.MAX_SAFE_INTEGER)).length, 1, 'the entry is kept');

          DefinitionRecorder.prototype.record = record;
          await context.ingestion.flush();
          const definitions = await catalog.db.selectFrom('event_definitions').select('name').execute();
          assert.deepEqual(
            definitions.map((row) => row.name),
            ['order placed'],
          );
          const properties = await catalog.db.selectFrom('property_definitions').select(['name', 'property_type']).where('name', '=', 'amount').execute();
          assert.deepEqual(properties, [{ name: 'amount', property_type: 'Numeric' }]);
          assert.equal((await warehouse.query('SELECT uuid FROM events')).length, 1, 'stored once');
          assert.deepEqual(await captureLog.read(100, 0, Number.MAX_SAFE_INTEGER), []);
          assert.deepEqual(await catalog.db.selectFrom('dead_letter_events').selectAll().execute(), [], 'nothing is set aside');
        } finally {
          DefinitionRecorder.prototype.record = record;
        }
      }),
  ));

test('a person changed through the API between batches is what the next batch builds on', () =>
  withStores(
    (stored) => stored,
    async ({ catalog, warehouse, context, projectToken, projectId }) => {
      const person = async () =>
        (await catalog.db.selectFrom('persons').select(['uuid', 'properties']).execute()).map((row) => ({ ...row, properties: JSON.parse(row.properties) }));
      await context.capture.capture(
        request(projectToken, [
          { event: 'signed up', distinct_id: 'user-1', uuid: '0190a3f2-0000-7000-8000-000000000001', properties: { $set: { plan: 'free', seats: 1 } } },
        ]),
      );
      await context.ingestion.flush();
      const [created] = await person();

      const project = (await context.projectRepository.findById(projectId))!;
      const user = await catalog.db.selectFrom('users').select('id').executeTakeFirstOrThrow();
      const key = { kind: 'uuid', uuid: created!.uuid } as const;
      await context.persons.writes.deleteProperty(project, key, 'seats', { userId: Number(user.id) });
      await context.persons.writes.setProperties(project, key, { plan: 'pro' }, { userId: Number(user.id) });

      await context.capture.capture(
        request(projectToken, [
          { event: 'color picked', distinct_id: 'user-1', uuid: '0190a3f2-0000-7000-8000-000000000002', properties: { $set: { color: 'red' } } },
        ]),
      );
      await context.ingestion.flush();
      assert.deepEqual(await person(), [
        { uuid: created!.uuid, properties: { plan: 'pro', color: 'red', $creator_event_uuid: '0190a3f2-0000-7000-8000-000000000001' } },
      ]);
      const [row] = await warehouse.query<{ person_properties: string }>("SELECT person_properties FROM events WHERE event = 'color picked'");
      assert.deepEqual(JSON.parse(row!.person_properties), { plan: 'pro', color: 'red', $creator_event_uuid: '0190a3f2-0000-7000-8000-000000000001' });
    },
  ));

test('without reads, a full batch is processed at once and fewer events after their fill time', () =>
  withStores(
    (stored) => stored,
    async ({ warehouse, captureLog, context, projectToken }) => {
      const events = (sent: number) =>
        Array.from({ length: 100 }, (_, index) => ({
          event: 'tick',
          distinct_id: `user-${index}`,
          uuid: `0190a3f2-0000-7000-8000-${String(sent * 100 + index).padStart(12, '0')}`,
        }));
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
    },
  ));

test('a person deleted through the API between batches is not found by the next batch: its distinct id gets a new person', () =>
  withStores(
    (stored) => stored,
    async ({ catalog, context, projectToken, projectId }) => {
      const persons = () => catalog.db.selectFrom('persons').select(['id', 'properties']).orderBy('id').execute();
      await context.capture.capture(
        request(projectToken, [
          { event: 'signed up', distinct_id: 'user-1', uuid: '0190a3f2-0000-7000-8000-000000000001', properties: { $set: { plan: 'free' } } },
        ]),
      );
      await context.ingestion.flush();
      const [created] = await persons();

      const project = (await context.projectRepository.findById(projectId))!;
      const user = await catalog.db.selectFrom('users').select('id').executeTakeFirstOrThrow();
      await context.persons.writes.delete(project, { kind: 'id', id: Number(created!.id) }, false, { userId: Number(user.id) });

      await context.capture.capture(
        request(projectToken, [
          { event: 'came back', distinct_id: 'user-1', uuid: '0190a3f2-0000-7000-8000-000000000002', properties: { $set: { color: 'red' } } },
        ]),
      );
      await context.ingestion.flush();
      const [again] = await persons();
      assert.deepEqual(JSON.parse(again!.properties), { color: 'red', $creator_event_uuid: '0190a3f2-0000-7000-8000-000000000002' });
      assert.notEqual(Number(again!.id), Number(created!.id), 'a new catalog row');
      const links = await catalog.db.selectFrom('person_distinct_ids').select('distinct_id').execute();
      assert.deepEqual(
        links.map((link) => link.distinct_id),
        ['user-1'],
      );
    },
  ));

test("a store that fails after the next batch committed fails that batch's store too: the next pass stores every event once", () =>
  withStores(
    (stored) => new FaultyWarehouse(stored),
    async ({ warehouse, captureLog, context, projectToken }) =>
      quietly(async () => {
        // The first batch's insert fails only once the second batch (its last 100 events) has committed.
        warehouse.failNext = 1;
        warehouse.failAfterMs = 1500;
        const events = (sent: number) =>
          Array.from({ length: 100 }, (_, index) => ({
            event: 'tick',
            distinct_id: `user-${index}`,
            uuid: `0190a3f2-0000-7000-8000-${String(sent * 100 + index).padStart(12, '0')}`,
          }));
        for (let sent = 0; sent < 201; sent++) await context.capture.capture(request(projectToken, events(sent)));
        await context.ingestion.flush().catch(() => undefined);
        await context.ingestion.flush();
        assert.equal(warehouse.failures, 1);
        const [row] = await warehouse.query<{ n: number; uuids: number }>('SELECT count() AS n, uniqExact(uuid) AS uuids FROM events');
        assert.deepEqual(row, { n: 20100, uuids: 20100 });
        assert.deepEqual(await captureLog.read(100, 0, Number.MAX_SAFE_INTEGER), [], 'every entry is removed once stored');
      }),
  ));

test('a warehouse that does not answer is waited for: the consumer retries by itself, reads go on, and nothing is set aside', () =>
  withStores(
    (stored) => new FaultyWarehouse(stored),
    async ({ catalog, warehouse, captureLog, context, projectToken }) =>
      quietly(async () => {
        warehouse.failNext = 3;
        warehouse.error = connectionRefused;
        const events = (sent: number) =>
          Array.from({ length: 5 }, (_, index) => ({
            event: 'tick',
            distinct_id: `user-${index}`,
            uuid: `0190a3f2-0000-7000-8000-${String(sent * 5 + index).padStart(12, '0')}`,
          }));
        await context.capture.capture(request(projectToken, events(0)));
        await context.capture.capture(request(projectToken, events(1)));
        // Nothing flushes here but reads, which never fail: the fill time starts processing, and
        // the consumer's own retries, after 250, 500 and 1000 ms, get past the three refusals.
        await context.ingestion.catchUp();
        await logEmptied(captureLog);
        assert.equal(warehouse.failures, 3);
        const [row] = await warehouse.query<{ n: number; uuids: number }>('SELECT count() AS n, uniqExact(uuid) AS uuids FROM events');
        assert.deepEqual(row, { n: 10, uuids: 10 });
        assert.deepEqual(await catalog.db.selectFrom('dead_letter_events').selectAll().execute(), []);
        assert.deepEqual(await catalog.db.selectFrom('ingestion_warnings').selectAll().execute(), []);
        assert.equal((await catalog.db.selectFrom('persons').select('id').execute()).length, 5);
      }),
  ));

test('an event the warehouse refuses is set aside as a dead letter with a warning; every other event is stored once', () =>
  withStores(
    (stored) => new FaultyWarehouse(stored),
    async ({ catalog, warehouse, captureLog, context, projectToken, projectId }) =>
      quietly(async () => {
        const poison = '0190a3f2-0000-7000-8000-000000000015';
        warehouse.refusedUuid = poison;
        const events = (sent: number) =>
          Array.from({ length: 10 }, (_, index) => ({
            event: 'tick',
            distinct_id: `user-${index}`,
            uuid: `0190a3f2-0000-7000-8000-${String(sent * 10 + index).padStart(12, '0')}`,
            properties: { $set: { [`seen_${sent}`]: true } },
          }));
        for (let sent = 0; sent < 3; sent++) await context.capture.capture(request(projectToken, events(sent)));
        await context.ingestion.catchUp();
        await logEmptied(captureLog);

        const stored = await warehouse.query<{ uuid: string }>('SELECT toString(uuid) AS uuid FROM events ORDER BY uuid');
        const expected = [0, 1, 2].flatMap((sent) => events(sent).map((event) => event.uuid)).filter((uuid) => uuid !== poison);
        assert.deepEqual(
          stored.map((row) => row.uuid),
          expected,
          'the other 29 events, once each',
        );
        assert.ok(warehouse.refusals >= 2, 'the event was tried alone, twice, before it was set aside');

        const letters = await catalog.db.selectFrom('dead_letter_events').selectAll().execute();
        assert.equal(letters.length, 1);
        const letter = letters[0]!;
        assert.deepEqual(
          { team_id: Number(letter.team_id), event_uuid: letter.event_uuid, event: letter.event, distinct_id: letter.distinct_id },
          { team_id: projectId, event_uuid: poison, event: 'tick', distinct_id: 'user-5' },
        );
        assert.match(letter.error, /injected: the warehouse cannot take this row/);
        const payload = JSON.parse(letter.payload) as { uuid: string; properties: Record<string, unknown> };
        assert.equal(payload.uuid, poison);
        assert.deepEqual(payload.properties.$set, { seen_1: true });

        const project = (await context.projectRepository.findById(projectId))!;
        const summaries = await context.ingestionWarningService.list(project, null);
        assert.deepEqual(
          summaries.map((summary) => ({ type: summary.type, count: summary.count, details: summary.warnings.map((warning) => warning.details) })),
          [{ type: 'event_processing_failed', count: 1, details: [{ eventUuid: poison, event: 'tick', distinctId: 'user-5', error: letter.error }] }],
        );
        // The person of the event set aside still has the changes of the events stored.
        const persons = await catalog.db.selectFrom('persons').select('properties').execute();
        assert.equal(persons.length, 10);
      }),
  ));

test('a log entry that is not events, and an event that processing cannot take, are set aside; the events around them are stored', () =>
  withStores(
    (stored) => stored,
    async ({ catalog, warehouse, captureLog, context, projectId }) =>
      quietly(async () => {
        const logged = (events: object[]) => ({
          teamId: projectId,
          receivedAt: Date.now(),
          eventCount: events.length,
          events: new TextEncoder().encode(JSON.stringify(events)),
        });
        const event = (uuid: string) => ({
          uuid,
          event: 'tick',
          distinctId: 'user-1',
          time: Date.now(),
          elementsChain: '',
          processPerson: true,
          properties: {},
        });
        await captureLog.append([
          logged([event('0190a3f2-0000-7000-8000-000000000001')]),
          { teamId: projectId, receivedAt: Date.now(), eventCount: 1, events: new TextEncoder().encode('[{"uuid": "cut short') },
          logged([event('0190a3f2-0000-7000-8000-000000000002'), event('not-a-uuid'), event('0190a3f2-0000-7000-8000-000000000003')]),
        ]);
        await context.ingestion.catchUp();
        await logEmptied(captureLog);
        const stored = await warehouse.query<{ uuid: string }>('SELECT toString(uuid) AS uuid FROM events ORDER BY uuid');
        assert.deepEqual(
          stored.map((row) => row.uuid),
          ['0190a3f2-0000-7000-8000-000000000001', '0190a3f2-0000-7000-8000-000000000002', '0190a3f2-0000-7000-8000-000000000003'],
        );
        const letters = await catalog.db.selectFrom('dead_letter_events').select(['event_uuid', 'payload', 'error']).orderBy('id').execute();
        assert.deepEqual(
          letters.map((letter) => ({ event_uuid: letter.event_uuid, payload: letter.event_uuid === null ? letter.payload : JSON.parse(letter.payload).uuid })),
          [
            { event_uuid: null, payload: '[{"uuid": "cut short' },
            { event_uuid: 'not-a-uuid', payload: 'not-a-uuid' },
          ],
        );
        assert.match(letters[1]!.error, /not a UUID/);
      }),
  ));

test('a person is never given more than 512 KB of properties, and a batch stops taking entries at 64 MB of event rows', () =>
  withStores(
    (stored) => new CountedInserts(stored),
    async ({ catalog, warehouse, captureLog, context, projectToken, projectId }) => {
      const half = 'h'.repeat(300 * 1024);
      await context.capture.capture(
        request(projectToken, [{ event: 'grow', distinct_id: 'big', uuid: '0190a3f2-0000-7000-8000-000000000001', properties: { $set: { first: half } } }]),
      );
      await context.capture.capture(
        request(projectToken, [{ event: 'grow', distinct_id: 'big', uuid: '0190a3f2-0000-7000-8000-000000000002', properties: { $set: { second: half } } }]),
      );
      await context.capture.capture(
        request(projectToken, [
          { event: 'grow', distinct_id: 'fresh', uuid: '0190a3f2-0000-7000-8000-000000000003', properties: { $set: { a: half, b: half } } },
        ]),
      );
      await context.ingestion.flush();
      const properties = async (distinctId: string) => {
        const row = await catalog.db
          .selectFrom('persons')
          .innerJoin('person_distinct_ids', 'person_distinct_ids.person_id', 'persons.id')
          .select('persons.properties')
          .where('person_distinct_ids.distinct_id', '=', distinctId)
          .executeTakeFirstOrThrow();
        return JSON.parse(row.properties) as Record<string, unknown>;
      };
      assert.deepEqual(Object.keys(await properties('big')), ['first', '$creator_event_uuid'], 'the update past 512 KB is refused');
      assert.deepEqual(
        await properties('fresh'),
        { $creator_event_uuid: '0190a3f2-0000-7000-8000-000000000003' },
        'a person created past it keeps only its creator',
      );
      const project = (await context.projectRepository.findById(projectId))!;
      const [violations] = await context.ingestionWarningService.list(project, 'person_properties_size_violation');
      assert.deepEqual(violations!.warnings.map((warning) => [warning.details.distinctId, warning.details.eventUuid]).sort(), [
        ['big', '0190a3f2-0000-7000-8000-000000000002'],
        ['fresh', '0190a3f2-0000-7000-8000-000000000003'],
      ]);

      // Each event of `big` carries its 300 KB of properties: 600 of them make about 180 MB of rows.
      warehouse.eventInserts = 0;
      const events = (sent: number) =>
        Array.from({ length: 20 }, (_, index) => ({
          event: 'tick',
          distinct_id: 'big',
          uuid: `0190a3f2-0000-7000-8001-${String(sent * 20 + index).padStart(12, '0')}`,
        }));
      for (let sent = 0; sent < 30; sent++) await context.capture.capture(request(projectToken, events(sent)));
      await context.ingestion.flush();
      await logEmptied(captureLog);
      const [row] = await warehouse.query<{ n: number; uuids: number }>("SELECT count() AS n, uniqExact(uuid) AS uuids FROM events WHERE event = 'tick'");
      assert.deepEqual(row, { n: 600, uuids: 600 });
      assert.ok(warehouse.eventInserts >= 3, `${warehouse.eventInserts} inserts: the rows were stored in batches of at most about 64 MB`);
    },
  ));

/** The embedded warehouse, counting its events inserts. */
class CountedInserts extends FaultyWarehouse {
  eventInserts = 0;

  override insertRowBinary(table: string, columns: readonly WarehouseColumn[], rows: readonly Uint8Array[]): Promise<void> {
    if (table === 'events') this.eventInserts += 1;
    return super.insertRowBinary(table, columns, rows);
  }
}

test('closing does not wait on an insert that never ends: it gives up after its time and says so', () =>
  withStores(
    (stored) => new FaultyWarehouse(stored),
    async ({ warehouse, captureLog, context, projectToken }) => {
      warehouse.hang = true;
      await context.capture.capture(request(projectToken, [{ event: 'stuck', distinct_id: 'user-1', uuid: '0190a3f2-0000-7000-8000-000000000001' }]));
      context.ingestion.trigger();
      assert.equal(await context.ingestion.close(500), false);
      // The acknowledged event is still in the log for the next start.
      const held = { events: new Uint8Array() };
      assert.equal((await captureLog.read(100, 0, Number.MAX_SAFE_INTEGER, () => held)).length, 1);
    },
  ));

test("a person write by another process reaches the consumer's cached persons: the next event's $set keeps it", () =>
  withStores(
    (stored) => stored,
    async ({ catalog, warehouse, captureLog, context, projectToken, projectId }) => {
      const event = (uuid: string, set: Record<string, unknown>) => ({ event: 'seen', distinct_id: 'shared-1', uuid, properties: { $set: set } });
      await context.capture.capture(request(projectToken, [event('0190a3f2-0000-7000-8000-000000000001', { plan: 'free' })]));
      await context.ingestion.flush();
      // Another process on the same stores: its own services, and its own lock, which the
      // consumer's does not see.
      const other = createContext(context.config, catalog, warehouse, captureLog, new SoleProcess());
      const project = (await context.projectRepository.findById(projectId))!;
      const person = (await new PersonRepository(catalog.db).findByDistinctIds(projectId, ['shared-1'])).get('shared-1')!;
      await other.persons.writes.setProperties(project, { kind: 'id', id: person.id }, { tier: 'gold' }, { userId: 1 });
      await context.capture.capture(request(projectToken, [event('0190a3f2-0000-7000-8000-000000000002', { plan: 'pro' })]));
      await context.ingestion.flush();
      const stored = (await new PersonRepository(catalog.db).findByDistinctIds(projectId, ['shared-1'])).get('shared-1')!;
      assert.deepEqual(pickKeys(stored.properties, ['plan', 'tier']), { plan: 'pro', tier: 'gold' });
    },
  ));

function pickKeys(properties: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((key) => [key, properties[key]]));
}

test('/_health turns 503 while the warehouse refuses inserts and events wait past the stall limit, and 200 once they are processed', () =>
  withStores(
    (stored) => new FaultyWarehouse(stored),
    async ({ warehouse, context, projectToken }) =>
      quietly(async () => {
        const app = await buildApp(context);
        try {
          const health = async () => {
            const response = await app.inject({ method: 'GET', url: '/_health' });
            return { status: response.statusCode, body: response.json() };
          };
          assert.deepEqual(await health(), { status: 200, body: { status: 'ok' } });
          warehouse.failNext = 1_000;
          warehouse.error = connectionRefused;
          const events = [1, 2, 3].map((n) => ({ event: 'waiting', distinct_id: 'user-1', uuid: `0190a3f2-0000-7000-8000-00000000000${n}` }));
          await context.capture.capture(request(projectToken, events));
          context.ingestion.trigger();
          assert.deepEqual((await health()).status, 200, 'within the stall limit');
          await new Promise((resolve) => setTimeout(resolve, 1300));
          const stalled = await health();
          assert.equal(stalled.status, 503);
          assert.equal(stalled.body.status, 'ingestion_stalled');
          assert.equal(stalled.body.ingestion.backlog, 3);
          assert.equal(stalled.body.ingestion.failing, true);
          assert.ok(stalled.body.ingestion.lag_s >= 1.3 && stalled.body.ingestion.lag_s < 10, `lag ${stalled.body.ingestion.lag_s} s`);
          const numbers = await app.inject({ method: 'GET', url: '/_health/ingestion' });
          assert.equal(numbers.statusCode, 503);
          assert.equal(numbers.json().backlog, 3);
          warehouse.failNext = 0;
          await context.ingestion.flush().catch(() => undefined);
          await context.ingestion.flush();
          assert.deepEqual(await health(), { status: 200, body: { status: 'ok' } });
          const after = await app.inject({ method: 'GET', url: '/_health/ingestion' });
          assert.deepEqual([after.statusCode, after.json()], [200, { lag_s: 0, backlog: 0, failing: false }]);
        } finally {
          await app.close();
        }
      }),
    { TALLY_INGESTION_STALL_S: '1' },
  ));
