import { toClickhouseDateTime } from './datetime.js';
import type { WarehouseLayout } from './warehouse-layout.js';
import { quotedIdentifier } from './warehouse-sql.js';
import type { Warehouse } from './warehouse.js';

/**
 * Versioned warehouse DDL, applied in order at start-up. Each step is idempotent
 * (IF NOT EXISTS) so a crash between a step and its bookkeeping row is harmless. The DDL is
 * generated for the warehouse's layout (one node or a cluster, see WarehouseLayout).
 */
interface WarehouseMigration {
  version: number;
  name: string;
  /** Fixed DDL for the layout, run in order. */
  statements?: (layout: WarehouseLayout) => string[];
  /** A step that must look at the warehouse first; it must be safe to run again after a crash. */
  run?: (warehouse: Warehouse) => Promise<void>;
}

const MIGRATIONS: WarehouseMigration[] = [
  {
    version: 1,
    name: 'events',
    statements: (layout) => [
      `CREATE TABLE IF NOT EXISTS ${layout.storedTable('events')}${layout.onCluster} (
        uuid UUID,
        team_id Int64,
        event String,
        distinct_id String,
        properties String,
        timestamp DateTime64(6, 'UTC'),
        created_at DateTime64(6, 'UTC'),
        elements_chain String,
        person_id UUID,
        person_properties String,
        person_created_at DateTime64(3, 'UTC'),
        person_mode LowCardinality(String),
        \`$group_0\` String,
        \`$group_1\` String,
        \`$group_2\` String,
        \`$group_3\` String,
        \`$group_4\` String,
        \`$session_id\` String,
        INDEX uuid_bloom uuid TYPE bloom_filter GRANULARITY 1
      ) ENGINE = ${layout.engine('events', 'MergeTree')}
      PARTITION BY toYYYYMM(timestamp)
      ORDER BY (team_id, toDate(timestamp), event, cityHash64(distinct_id), cityHash64(uuid))
      SETTINGS fsync_after_insert = 1, fsync_part_directory = 1`,
      ...layout.distributedTable('events'),
    ],
  },
  {
    version: 2,
    name: 'replicas',
    // Replicas of catalog rows, written through the outbox. `version` is the outbox id, so the
    // latest write wins under ReplacingMergeTree; deletes are rows with is_deleted = 1. A
    // cluster's persons table starts with the key migration 5 moves a single node's to; one node
    // keeps the DDL it has always run.
    statements: (layout) => [
      `CREATE TABLE IF NOT EXISTS persons${layout.onCluster} (
        id UUID,
        team_id Int64,
        person_id Int64,
        properties String,
        is_identified UInt8,
        created_at DateTime64(6, 'UTC'),
        version UInt64,
        is_deleted UInt8
      ) ENGINE = ${layout.engine('persons', 'ReplacingMergeTree', 'version')}
      ORDER BY ${layout.isCluster ? '(team_id, person_id)' : '(team_id, id)'}
      SETTINGS fsync_after_insert = 1, fsync_part_directory = 1`,
      `CREATE TABLE IF NOT EXISTS person_distinct_ids${layout.onCluster} (
        team_id Int64,
        distinct_id String,
        person_id UUID,
        version UInt64,
        is_deleted UInt8
      ) ENGINE = ${layout.engine('person_distinct_ids', 'ReplacingMergeTree', 'version')}
      ORDER BY (team_id, distinct_id)
      SETTINGS fsync_after_insert = 1, fsync_part_directory = 1`,
      `CREATE TABLE IF NOT EXISTS groups${layout.onCluster} (
        team_id Int64,
        group_type_index UInt8,
        group_key String,
        group_properties String,
        created_at DateTime64(6, 'UTC'),
        version UInt64
      ) ENGINE = ${layout.engine('groups', 'ReplacingMergeTree', 'version')}
      ORDER BY (team_id, group_type_index, group_key)
      SETTINGS fsync_after_insert = 1, fsync_part_directory = 1`,
    ],
  },
  {
    version: 3,
    name: 'static_cohort_members',
    // Replica of the catalog's static cohort members, for membership joins; removals are is_deleted rows.
    statements: (layout) => [
      `CREATE TABLE IF NOT EXISTS static_cohort_members${layout.onCluster} (
        team_id Int64,
        cohort_id Int64,
        person_id UUID,
        version UInt64,
        is_deleted UInt8
      ) ENGINE = ${layout.engine('static_cohort_members', 'ReplacingMergeTree', 'version')}
      ORDER BY (team_id, cohort_id, person_id)
      SETTINGS fsync_after_insert = 1, fsync_part_directory = 1`,
    ],
  },
  {
    version: 4,
    name: 'event_uuids',
    // The stored (project, uuid) pairs, ordered for lookup: the events table is ordered by day and
    // name, so finding uuids there reads its whole uuid column, which grows with every event. The
    // view fills this table within the same insert as the events themselves; on a cluster, each
    // shard's view fills the shard's part of it.
    statements: (layout) => [
      `CREATE TABLE IF NOT EXISTS ${layout.storedTable('event_uuids')}${layout.onCluster} (team_id Int64, uuid UUID)
      ENGINE = ${layout.engine('event_uuids', 'ReplacingMergeTree')}
      ORDER BY (team_id, uuid)
      SETTINGS fsync_after_insert = 1, fsync_part_directory = 1`,
      ...layout.distributedTable('event_uuids'),
      `CREATE MATERIALIZED VIEW IF NOT EXISTS event_uuids_from_events${layout.onCluster} TO ${layout.storedTable('event_uuids')} AS SELECT team_id, uuid FROM ${layout.storedTable('events')}`,
      `INSERT INTO event_uuids SELECT team_id, uuid FROM events`,
    ],
  },
  {
    version: 5,
    name: 'persons_by_number',
    run: orderPersonsByNumber,
  },
  {
    version: 6,
    name: 'decoded_person_property_columns',
    run: dropPersonPropertyColumns,
  },
  {
    version: 7,
    name: 'hourly_event_counts',
    // Each part keeps its events counted per project, name and UTC hour: a trend counting named
    // events over whole hours reads these few rows instead of every event (see hourly-event-counts).
    // A lightweight DELETE rebuilds the projection of the parts it touches (by default ClickHouse
    // refuses DELETE on a table with projections). Existing parts get theirs here, once.
    statements: (layout) => {
      const events = `${layout.storedTable('events')}${layout.onCluster}`;
      return [
        `ALTER TABLE ${events} MODIFY SETTING lightweight_mutation_projection_mode = 'rebuild'`,
        `ALTER TABLE ${events} ADD PROJECTION IF NOT EXISTS hourly_event_counts (
          SELECT team_id, event, toStartOfHour(timestamp), count() GROUP BY team_id, event, toStartOfHour(timestamp)
        )`,
        `ALTER TABLE ${events} MATERIALIZE PROJECTION hourly_event_counts SETTINGS mutations_sync = 2`,
      ];
    },
  },
  {
    version: 8,
    name: 'vertical_event_merges',
    // Every merge of events parts goes column by column. A horizontal merge reads every column
    // of every part at once, a buffer each: while 1M events were loaded the merges' buffers were
    // the largest swings of the server's memory; merging vertically took the load's peak RSS down
    // by about 60 MB. Queries kept their times; CPU per event stayed within the loads' spread.
    // ClickHouse merges vertically only from 131,072 rows by default; capture's parts are smaller.
    statements: (layout) => [
      `ALTER TABLE ${layout.storedTable('events')}${layout.onCluster} MODIFY SETTING vertical_merge_algorithm_min_rows_to_activate = 1, vertical_merge_algorithm_min_columns_to_activate = 1`,
    ],
  },
];

/**
 * Re-keys the persons replica from (team_id, id) to (team_id, person_id). Catalog ids grow as
 * persons are created, so the parts written as persons arrive cover disjoint ranges of the new
 * key, and FINAL reads them without merging; under random UUIDs every part overlapped every other
 * and FINAL merged all of them (60 ms of a 100 ms filtered list with 1M persons). The data moves
 * to a new table swapped in atomically; a crash at any point leaves one of the two layouts with
 * all rows, and running the step again finishes the job. A cluster's persons table is created
 * with this key (migration 2), so there the step only drops a leftover table.
 */
async function orderPersonsByNumber(warehouse: Warehouse): Promise<void> {
  const { layout } = warehouse;
  const [current] = await warehouse.query<{ sorting_key: string }>(
    `SELECT sorting_key FROM system.tables WHERE database = currentDatabase() AND name = 'persons'`,
  );
  if (current?.sorting_key !== 'team_id, person_id') {
    await warehouse.command(layout.dropTable('persons_reordering'));
    await warehouse.command(`CREATE TABLE persons_reordering${layout.onCluster} AS persons
      ENGINE = ${layout.engine('persons_reordering', 'ReplacingMergeTree', 'version')}
      ORDER BY (team_id, person_id)
      SETTINGS fsync_after_insert = 1, fsync_part_directory = 1`);
    await warehouse.command('INSERT INTO persons_reordering SELECT * FROM persons');
    await warehouse.command(`EXCHANGE TABLES persons AND persons_reordering${layout.onCluster}`);
  }
  await warehouse.command(layout.dropTable('persons_reordering'));
}

/**
 * Drops the person-property columns (`pmat_…`, added on demand by the persons API): they held
 * string values with their JSON escapes (`a\"b`), where filters now compare the decoded text
 * (`a"b`). A column's name holds a hash of its key, which cannot be read back, so the column
 * cannot be redefined here; the persons API adds it again with the current definition the first
 * time a filter needs it, and ClickHouse computes it for existing rows until its background
 * mutation has stored it. Running the step again after a crash drops whatever is left.
 */
async function dropPersonPropertyColumns(warehouse: Warehouse): Promise<void> {
  const columns = await warehouse.query<{ name: string }>(
    `SELECT name FROM system.columns WHERE database = currentDatabase() AND table = 'persons' AND startsWith(name, 'pmat_')`,
  );
  for (const { name } of columns) {
    await warehouse.command(`ALTER TABLE persons${warehouse.layout.onCluster} DROP COLUMN IF EXISTS ${quotedIdentifier(name)}`);
  }
}

/** Applies the migrations not yet applied, up to `targetVersion` (all by default). */
export async function migrateWarehouse(warehouse: Warehouse, targetVersion = Infinity): Promise<void> {
  const { layout } = warehouse;
  await warehouse.command(
    `CREATE TABLE IF NOT EXISTS tally_migrations${layout.onCluster} (version UInt32, name String, applied_at DateTime64(3, 'UTC'))
     ENGINE = ${layout.engine('tally_migrations', 'MergeTree')} ORDER BY version`,
  );
  const applied = await warehouse.query<{ version: number }>('SELECT version FROM tally_migrations');
  const done = new Set(applied.map((row) => Number(row.version)));
  for (const migration of MIGRATIONS) {
    if (done.has(migration.version) || migration.version > targetVersion) continue;
    for (const statement of migration.statements?.(layout) ?? []) await warehouse.command(statement);
    await migration.run?.(warehouse);
    await warehouse.insert('tally_migrations', [{ version: migration.version, name: migration.name, applied_at: toClickhouseDateTime(new Date()) }]);
  }
}
