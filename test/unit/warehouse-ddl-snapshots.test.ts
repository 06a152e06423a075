import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { EventDeletionRunner } from '../../src/jobs/event-deletion-job.js';
import { DeletionTaskRepository } from '../../src/persons/deletion-task-repository.js';
import { EVENT_PROPERTY_COLUMNS, MaterializedProperties, PERSON_PROPERTY_COLUMNS } from '../../src/query/materialized-properties.js';
import { openCatalog, type Catalog } from '../../src/storage/catalog/catalog.js';
import { migrateWarehouse } from '../../src/storage/warehouse/migrations.js';
import type { QueryParams, TypedRows, Warehouse } from '../../src/storage/warehouse/warehouse.js';
import { WarehouseLayout } from '../../src/storage/warehouse/warehouse-layout.js';
import { formatQueries, type RecordedQuery, SqlSnapshots } from '../support/sql-snapshot.js';
import { tempDataDir } from '../support/tally.js';

/**
 * Snapshots of the warehouse DDL Tally runs, in test/snapshots/warehouse-ddl/<layout>-<case>.sql:
 * every statement of a fresh migration and of an upgrade over older tables, and the statements
 * run while serving (an event property column, a person property column, an event deletion), for
 * one node and for a cluster. Nothing runs them (CI has no cluster): a recording warehouse
 * answers the reads from what the case says the warehouse holds. The single-node files are the
 * statements Tally ran before it knew clusters. After changing DDL on purpose, rewrite the files:
 *   npm run build && UPDATE_SNAPSHOTS=1 node --test dist/test/unit/warehouse-ddl-snapshots.test.js
 */

const UPDATE_COMMAND = 'npm run build && UPDATE_SNAPSHOTS=1 node --test dist/test/unit/warehouse-ddl-snapshots.test.js';
const SNAPSHOTS = new SqlSnapshots('test/snapshots/warehouse-ddl', UPDATE_COMMAND);

/** The bookkeeping rows' applied_at. */
const NOW = Date.parse('2026-01-15T12:00:00.000Z');

/** What the warehouse holds before the code under snapshot runs. */
interface WarehouseState {
  /** Migration versions already applied. */
  applied?: number[];
  /** The persons table's sorting key; by default, the one its recorded CREATE TABLE declares. */
  personsSortingKey?: string;
  /** The property columns system.columns lists. */
  columns?: string[];
}

/**
 * A warehouse that runs nothing: it records every statement, answers the reads the migrations,
 * the property columns and the deletion job make from the case's state, and refuses anything else.
 */
class DdlRecordingWarehouse implements Warehouse {
  readonly kind = 'clickhouse' as const;
  readonly calls: RecordedQuery[] = [];

  constructor(
    readonly layout: WarehouseLayout,
    private readonly state: WarehouseState,
  ) {}

  private answer(sql: string): object[] {
    if (/FROM tally_migrations/.test(sql)) return (this.state.applied ?? []).map((version) => ({ version }));
    if (/FROM system\.tables/.test(sql)) return [{ sorting_key: this.state.personsSortingKey ?? this.declaredSortingKey('persons') }];
    if (/FROM system\.columns/.test(sql)) return (this.state.columns ?? []).map((name) => ({ name }));
    if (/countIf/.test(sql)) return [{ remaining_0: 0 }];
    throw new Error(`DdlRecordingWarehouse: unexpected read: ${sql.slice(0, 200)}`);
  }

  /** The ORDER BY of the recorded CREATE TABLE of `table`, as system.tables writes it. */
  private declaredSortingKey(table: string): string {
    const create = this.calls.find((call) => new RegExp(`^CREATE TABLE IF NOT EXISTS ${table}\\b`).test(call.sql));
    const key = create && /ORDER BY \(([^)]*)\)/.exec(create.sql);
    if (!key) throw new Error(`DdlRecordingWarehouse: no CREATE TABLE of ${table} recorded`);
    return key[1]!;
  }

  async query<T = Record<string, unknown>>(sql: string, params?: QueryParams): Promise<T[]> {
    this.calls.push({ method: 'query', sql, params: params ?? {} });
    return this.answer(sql) as T[];
  }

  async queryColumns(sql: string): Promise<TypedRows> {
    throw new Error(`DdlRecordingWarehouse: unexpected read: ${sql.slice(0, 200)}`);
  }

  async command(sql: string, params?: QueryParams): Promise<void> {
    this.calls.push({ method: 'command', sql, params: params ?? {} });
  }

  async insert(table: string, rows: readonly object[]): Promise<void> {
    this.calls.push({ method: 'insert', sql: `INSERT INTO ${table} FORMAT JSONEachRow`, params: { rows } });
  }

  async insertJsonEachRow(table: string): Promise<void> {
    throw new Error(`DdlRecordingWarehouse: unexpected insert into ${table}`);
  }

  async insertRowBinary(table: string): Promise<void> {
    throw new Error(`DdlRecordingWarehouse: unexpected insert into ${table}`);
  }

  async storedKeys(table: string): Promise<string[][]> {
    throw new Error(`DdlRecordingWarehouse: unexpected stored-keys lookup in ${table}`);
  }

  async close(): Promise<void> {}
}

interface DdlCase {
  /** The snapshot file's name after the layout's: <layout>-<case>. */
  name: string;
  /** What the snapshot shows, for its header. */
  description: string;
  state?: WarehouseState;
  run(warehouse: Warehouse): Promise<unknown>;
}

function failOnError(error: unknown): never {
  throw error;
}

/** The deletion job's catalog, where its case queues a task. */
let catalog: Catalog;
let catalogDir: string;

const CASES: DdlCase[] = [
  {
    name: 'migrate-fresh',
    description: 'every statement of the migrations on an empty warehouse',
    run: (warehouse) => migrateWarehouse(warehouse),
  },
  {
    name: 'migrate-from-4',
    description: 'the persons re-key and the person-column drop, over tables of migration 4 holding one person column',
    state: { applied: [1, 2, 3, 4], personsSortingKey: 'team_id, id', columns: ['pmat_plan_0123456789abcdef'] },
    run: (warehouse) => migrateWarehouse(warehouse),
  },
  {
    name: 'event-property-column',
    description: 'the first read of the event property $browser adds its column',
    run: (warehouse) => new MaterializedProperties(warehouse, EVENT_PROPERTY_COLUMNS, failOnError).columnsFor(['$browser']),
  },
  {
    name: 'person-property-column',
    description: 'the first filter on the person property plan adds its column',
    run: (warehouse) => new MaterializedProperties(warehouse, PERSON_PROPERTY_COLUMNS, failOnError).columnsFor(['plan']),
  },
  {
    name: 'event-deletion',
    description: "the deletion job deletes a deleted person's events, then counts what is left",
    run: async (warehouse) => {
      const tasks = new DeletionTaskRepository(catalog.db);
      await tasks.queue({
        teamId: 1,
        personUuid: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b',
        distinctIds: ['ada', 'ada-anon'],
        createdAt: new Date(NOW).toISOString(),
        createdById: null,
      });
      return new EventDeletionRunner(tasks, warehouse).runPending();
    },
  },
];

const LAYOUTS: Record<string, WarehouseLayout> = {
  'single-node': WarehouseLayout.SINGLE_NODE,
  cluster: WarehouseLayout.cluster('tally_cluster', 'analytics'),
};

describe('warehouse DDL snapshots (test/snapshots/warehouse-ddl)', () => {
  before(async () => {
    catalogDir = tempDataDir('tally-ddl-snapshots-');
    catalog = await openCatalog({ databaseUrl: null, dataDir: catalogDir });
  });
  after(async () => {
    await catalog.close();
    fs.rmSync(catalogDir, { recursive: true, force: true });
  });

  for (const [layoutName, layout] of Object.entries(LAYOUTS)) {
    for (const ddlCase of CASES) {
      const name = `${layoutName}-${ddlCase.name}`;
      test(name, async (t) => {
        t.mock.timers.enable({ apis: ['Date'], now: NOW });
        const warehouse = new DdlRecordingWarehouse(layout, ddlCase.state ?? {});
        await ddlCase.run(warehouse);
        const header = [`${name}: ${ddlCase.description}`, `Rewrite: ${UPDATE_COMMAND}`];
        SNAPSHOTS.check(name, formatQueries(header.join('\n'), warehouse.calls));
      });
    }
  }

  test('every snapshot file belongs to a case', () => {
    SNAPSHOTS.checkNoneObsolete(Object.keys(LAYOUTS).flatMap((layoutName) => CASES.map((ddlCase) => `${layoutName}-${ddlCase.name}`)));
  });
});
