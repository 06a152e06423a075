import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { describe, test } from 'node:test';
import { appendPendingEvents, readPendingEvents } from '../../src/capture/pending-events.js';
import type { EventRow } from '../../src/capture/event-writer.js';
import { openCatalog, SQLITE_FILE, type CatalogOptions } from '../../src/storage/catalog/catalog.js';
import { catalogMigrations } from '../../src/storage/catalog/migrations/index.js';
import { createPostgresDatabase, POSTGRES_SKIP_REASON } from '../support/catalogs.js';
import { tempDataDir } from '../support/tally.js';

function eventRow(uuid: string, event: string): EventRow {
  return {
    uuid,
    team_id: 7,
    event,
    distinct_id: 'd',
    properties: '{"line":"one\\ntwo"}',
    timestamp: '2024-01-01 00:00:00.000000',
    created_at: '2024-01-01 00:00:00.000000',
    elements_chain: '',
    person_id: '00000000-0000-0000-0000-000000000000',
    person_properties: '{}',
    person_created_at: '1970-01-01 00:00:00.000000',
    person_mode: 'full',
    $group_0: '',
    $group_1: '',
    $group_2: '',
    $group_3: '',
    $group_4: '',
    $session_id: '',
  };
}

const UUIDS = ['0190a3f2-0000-7000-8000-000000000001', '0190a3f2-0000-7000-8000-000000000002', '0190a3f2-0000-7000-8000-000000000003'];

/** A catalog location on each backend, opened raw (for a schema before the latest) or as the server opens it. */
const LOCATIONS = [
  {
    name: 'sqlite',
    skip: null,
    async create() {
      const dataDir = tempDataDir('tally-pending-');
      return {
        options: { databaseUrl: null, dataDir } satisfies CatalogOptions,
        raw: () => new Kysely<any>({ dialect: new SqliteDialect({ database: new Database(path.join(dataDir, SQLITE_FILE)) }) }),
        dialect: 'sqlite' as const,
        drop: async () => fs.rmSync(dataDir, { recursive: true, force: true }),
      };
    },
  },
  {
    name: 'postgres',
    skip: POSTGRES_SKIP_REASON,
    async create() {
      const database = await createPostgresDatabase();
      return {
        options: { databaseUrl: database.url, dataDir: tempDataDir('tally-unused-') } satisfies CatalogOptions,
        raw: () => new Kysely<any>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: database.url }) }) }),
        dialect: 'postgres' as const,
        drop: () => database.drop(),
      };
    },
  },
];

for (const location of LOCATIONS) {
  describe(`pending events on ${location.name}`, { skip: location.skip ?? false }, () => {
    test('a request at a time, read back as its events in order, a bounded number of requests per read', async () => {
      const place = await location.create();
      const catalog = await openCatalog(place.options);
      try {
        await appendPendingEvents(catalog.db, 7, [[eventRow(UUIDS[0]!, 'a'), eventRow(UUIDS[1]!, 'b')], [], [eventRow(UUIDS[2]!, 'c')]]);
        const first = await readPendingEvents(catalog.db, 0, 1);
        assert.equal(first.requests, 1);
        assert.deepEqual(
          first.rows.map((row) => [row.teamId, row.uuid, JSON.parse(row.json).event, JSON.parse(row.json).properties]),
          [
            [7, UUIDS[0], 'a', '{"line":"one\\ntwo"}'],
            [7, UUIDS[1], 'b', '{"line":"one\\ntwo"}'],
          ],
        );
        const rest = await readPendingEvents(catalog.db, first.lastId!, 10);
        assert.equal(rest.requests, 1);
        assert.deepEqual(rest.rows.map((row) => row.uuid), [UUIDS[2]]);
        assert.deepEqual(await readPendingEvents(catalog.db, rest.lastId!, 10), { lastId: null, requests: 0, rows: [] });
      } finally {
        await catalog.close();
        await place.drop();
      }
    });

    test('events still waiting in the per-event queue of an older catalog become one-event requests, in order', async () => {
      const place = await location.create();
      const raw = place.raw();
      const migrator = new Migrator({ db: raw, provider: catalogMigrations(place.dialect), allowUnorderedMigrations: true });
      const { error } = await migrator.migrateTo('006-person-list-indexes');
      assert.equal(error, undefined);
      for (const [index, uuid] of UUIDS.entries()) {
        await raw.insertInto('pending_events').values({ team_id: 7, uuid, row: JSON.stringify(eventRow(uuid, `e${index}`)) }).execute();
      }
      await raw.destroy();
      const catalog = await openCatalog(place.options);
      try {
        const pending = await readPendingEvents(catalog.db, 0, 10);
        assert.equal(pending.requests, 3);
        assert.deepEqual(
          pending.rows.map((row) => [row.uuid, JSON.parse(row.json).event]),
          [
            [UUIDS[0], 'e0'],
            [UUIDS[1], 'e1'],
            [UUIDS[2], 'e2'],
          ],
        );
      } finally {
        await catalog.close();
        await place.drop();
      }
    });
  });
}
