import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { describe, test } from 'node:test';
import { openCatalog, SQLITE_FILE, type CatalogOptions } from '../../src/storage/catalog/catalog.js';
import { catalogMigrations } from '../../src/storage/catalog/migrations/index.js';
import { LAST_CONVERTING_BUILD } from '../../src/storage/catalog/migrations/015-legacy-queues.js';
import { createPostgresDatabase, POSTGRES_SKIP_REASON } from '../support/catalogs.js';
import { tempDataDir } from '../support/tally.js';

/** A catalog location on each backend, opened raw (for a schema before the latest) or as the server opens it. */
const LOCATIONS = [
  {
    name: 'sqlite',
    dialect: 'sqlite' as const,
    skip: null,
    async create() {
      const dataDir = tempDataDir('tally-catalog-upgrade-');
      return {
        options: { databaseUrl: null, dataDir } satisfies CatalogOptions,
        raw: () => new Kysely<any>({ dialect: new SqliteDialect({ database: new Database(path.join(dataDir, SQLITE_FILE)) }) }),
        drop: async () => fs.rmSync(dataDir, { recursive: true, force: true }),
      };
    },
  },
  {
    name: 'postgres',
    dialect: 'postgres' as const,
    skip: POSTGRES_SKIP_REASON,
    async create() {
      const database = await createPostgresDatabase();
      return {
        options: { databaseUrl: database.url, dataDir: tempDataDir('tally-unused-') } satisfies CatalogOptions,
        raw: () => {
          const pool = new pg.Pool({ connectionString: database.url });
          // The database is dropped with FORCE at the end, which ends any connection still idle here.
          pool.on('error', () => undefined);
          return new Kysely<any>({ dialect: new PostgresDialect({ pool }) });
        },
        drop: () => database.drop(),
      };
    },
  },
];

const UUID = '0190a3f2-0000-7000-8000-000000000001';

/** What builds before 2026-11-23 could leave for their successors to convert, each as it would lie in a catalog of migration 014. */
const LEFTOVERS = [
  {
    name: 'events waiting for the warehouse in pending_event_batches',
    dialects: ['sqlite', 'postgres'],
    table: 'pending_event_batches',
    row: { team_id: 1, uuids: UUID, rows: JSON.stringify({ uuid: UUID, event: 'e', team_id: 1 }) },
    says: /events waiting for the warehouse \(pending_event_batches\)/,
  },
  {
    name: 'capture requests in the embedded catalog table capture_log',
    dialects: ['sqlite'],
    table: 'capture_log',
    row: { team_id: 1, received_at: 1_704_067_200_000, event_count: 1, events: '[]' },
    says: /capture requests in the catalog table capture_log/,
  },
  {
    name: 'replica writes as JSON lines in warehouse_outbox',
    dialects: ['sqlite', 'postgres'],
    table: 'warehouse_outbox',
    row: { target: 'person_distinct_ids', row: JSON.stringify({ team_id: 1, distinct_id: 'd', person_id: UUID, is_deleted: 0 }) },
    says: /replica writes as JSON lines \(warehouse_outbox\)/,
  },
];

for (const location of LOCATIONS) {
  describe(`catalog upgrade on ${location.name}`, { skip: location.skip ?? false }, () => {
    /** A catalog migrated as the build before migration 015 left it. */
    async function catalogOfMigration014() {
      const place = await location.create();
      const raw = place.raw();
      const migrator = new Migrator({ db: raw, provider: catalogMigrations(location.dialect), allowUnorderedMigrations: true });
      assert.equal((await migrator.migrateTo('014-person-write-epoch')).error, undefined);
      return { place, raw };
    }

    for (const leftover of LEFTOVERS.filter((candidate) => candidate.dialects.includes(location.dialect))) {
      test(`a catalog still holding ${leftover.name} is refused, untouched, naming the build to go through`, async () => {
        const { place, raw } = await catalogOfMigration014();
        try {
          await raw.insertInto(leftover.table).values(leftover.row).execute();
          await assert.rejects(openCatalog(place.options), (error: Error) => {
            assert.match(error.message, leftover.says);
            assert.match(error.message, new RegExp(`Start it once with Tally at commit ${LAST_CONVERTING_BUILD}`));
            return true;
          });
          assert.equal((await raw.selectFrom(leftover.table).selectAll().execute()).length, 1, 'the row is still there');
          const applied = await raw.selectFrom('kysely_migration').select('name').orderBy('name', 'desc').limit(1).execute();
          assert.deepEqual(applied, [{ name: '014-person-write-epoch' }]);

          // Once a converting build has emptied it, this build opens it.
          await raw.deleteFrom(leftover.table).execute();
          const catalog = await openCatalog(place.options);
          await catalog.close();
        } finally {
          await raw.destroy();
          await place.drop();
        }
      });
    }

    test('an emptied catalog migrates: the pending-events table goes, the capture log table stays', async () => {
      const { place, raw } = await catalogOfMigration014();
      try {
        const catalog = await openCatalog(place.options);
        await catalog.close();
        const tables = (await raw.introspection.getTables()).map((table) => table.name);
        assert.ok(!tables.includes('pending_event_batches'));
        assert.ok(tables.includes('capture_log'));
        assert.ok(tables.includes('warehouse_outbox'));
      } finally {
        await raw.destroy();
        await place.drop();
      }
    });
  });
}
