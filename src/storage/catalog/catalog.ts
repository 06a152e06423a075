import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { Kysely, Migrator, PostgresDialect, sql, SqliteDialect, type SqliteDatabase, type Transaction } from 'kysely';
import type { CatalogSchema } from './schema.js';
import type { CatalogDialect } from './dialect.js';
import { DeferredWalSync } from './deferred-wal-sync.js';
import { NulFreeParameters } from './nul-free-parameters.js';
import { catalogMigrations } from './migrations/index.js';

export type CatalogDb = Kysely<CatalogSchema>;

/** An open catalog transaction: repositories take one (`withTransaction`) for writes that must commit together. */
export type CatalogTransaction = Transaction<CatalogSchema>;

/** The row store: SQLite under the data directory, or PostgreSQL when DATABASE_URL is set. */
export interface Catalog {
  readonly db: CatalogDb;
  readonly dialect: CatalogDialect;
  /**
   * Runs `work` in a transaction on `db` (the catalog's, or one derived from it with plugins)
   * that is durable only once a later `syncCommits()` resolves: for bulk writes whose source is
   * kept durable elsewhere until then. Embedded, the commit then does not wait on the disk.
   */
  deferredSyncTransaction<T>(db: CatalogDb, work: (trx: CatalogTransaction) => Promise<T>): Promise<T>;
  /** Makes every transaction committed so far durable. */
  syncCommits(): Promise<void>;
  /**
   * SQLite only (null on PostgreSQL): writes a copy of the catalog to `file` with SQLite's online
   * backup, a few pages at a time between other work; writes made meanwhile are in the copy.
   */
  readonly backupTo: ((file: string) => Promise<void>) | null;
  /** Bytes the catalog takes: the SQLite file with its WAL, or the PostgreSQL database. */
  sizeBytes(): Promise<number>;
  close(): Promise<void>;
}

export interface CatalogOptions {
  databaseUrl: string | null;
  dataDir: string;
}

export const SQLITE_FILE = 'catalog.sqlite';

/** Prepared statements kept per connection: enough for every query shape the server runs. */
const STATEMENT_CACHE_SIZE = 1000;

/**
 * The connection as Kysely sees it, with its prepared statements kept by SQL text (least recently
 * used dropped first). Kysely prepares every query it runs, and capture runs the same few shapes
 * thousands of times a second. Kysely runs one query at a time on the connection and never
 * streams here, so a statement is never reused while it is still running.
 */
function withStatementCache(database: Database.Database): SqliteDatabase {
  const statements = new Map<string, Database.Statement>();
  return {
    close: () => database.close(),
    prepare(sql: string) {
      let statement = statements.get(sql);
      if (statement) statements.delete(sql);
      else statement = database.prepare(sql);
      statements.set(sql, statement);
      if (statements.size > STATEMENT_CACHE_SIZE) statements.delete(statements.keys().next().value!);
      return statement;
    },
  };
}

function openSqlite(dataDir: string): Catalog {
  fs.mkdirSync(dataDir, { recursive: true });
  const database = new Database(path.join(dataDir, SQLITE_FILE));
  // A file system without shared memory can refuse WAL; SQLite then keeps its rollback journal.
  const walMode = database.pragma('journal_mode = WAL', { simple: true }) === 'wal';
  // FULL syncs the WAL on every commit: an acknowledged write survives power loss, not just a crash.
  database.pragma('synchronous = FULL');
  database.pragma('foreign_keys = ON');
  database.pragma('busy_timeout = 5000');
  // The page cache is SQLite's own copy of pages the operating system caches anyway; a miss costs a
  // read from that cache, not the disk. Loading a million events, 32 MB instead of 128 MB lowered
  // the server's peak RSS by 60-75 MB with no more CPU per event (alternating runs); SQLite takes
  // the memory as pages are read, so a small catalog costs less still.
  database.pragma('cache_size = -32768');
  // A checkpoint runs inside the commit that crosses this many WAL pages (512 MB), holding the
  // event loop while it copies and syncs: fewer, larger ones copy a page a run of batches keeps
  // rewriting once, not once per 64 MB. The WAL file keeps its largest size until the catalog closes.
  database.pragma('wal_autocheckpoint = 131072');
  const db = new Kysely<CatalogSchema>({ dialect: new SqliteDialect({ database: withStatementCache(database) }) });
  // Without a WAL there is nothing to sync later: every commit then waits on the disk.
  const deferred = walMode ? new DeferredWalSync(`${database.name}-wal`) : null;
  return {
    db,
    dialect: 'sqlite',
    deferredSyncTransaction: (on, work) => (deferred ? deferred.transaction(on, work) : on.transaction().execute(work)),
    syncCommits: async () => deferred?.sync(),
    backupTo: async (file) => {
      await database.backup(file);
    },
    sizeBytes: async () => fileSizes(database.name, ['', '-wal', '-shm']),
    close: async () => {
      await deferred?.close();
      await db.destroy();
    },
  };
}

function openPostgres(databaseUrl: string): Catalog {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
  // PostgreSQL ends idle connections when it restarts, fails over or drops the database: the pool
  // discards such a client and the next query opens a new one. Unheard, the error would end the process.
  pool.on('error', () => undefined);
  const db = new Kysely<CatalogSchema>({ dialect: new PostgresDialect({ pool }), plugins: [new NulFreeParameters()] });
  return {
    db,
    dialect: 'postgres',
    // PostgreSQL commits are durable at once; their cost is on the server, not in this process.
    deferredSyncTransaction: (on, work) => on.transaction().execute(work),
    syncCommits: async () => undefined,
    backupTo: null,
    sizeBytes: async () => {
      const { rows } = await sql<{ bytes: string }>`SELECT pg_database_size(current_database()) AS bytes`.execute(db);
      return Number(rows[0]?.bytes ?? 0);
    },
    close: () => db.destroy(),
  };
}

/** The summed sizes of `file` with each suffix, of those that exist. */
function fileSizes(file: string, suffixes: readonly string[]): number {
  return suffixes.reduce((total, suffix) => {
    try {
      return total + fs.statSync(file + suffix).size;
    } catch {
      return total;
    }
  }, 0);
}

/** Opens the catalog and brings its schema to the latest version. */
export async function openCatalog(options: CatalogOptions): Promise<Catalog> {
  const catalog = options.databaseUrl ? openPostgres(options.databaseUrl) : openSqlite(options.dataDir);
  try {
    const migrator = new Migrator({
      db: catalog.db,
      provider: catalogMigrations(catalog.dialect),
      // Migrations are numbered by area; one added later with a lower number must still run.
      allowUnorderedMigrations: true,
    });
    const { error } = await migrator.migrateToLatest();
    if (error) throw error;
  } catch (error) {
    await catalog.close();
    throw error;
  }
  return catalog;
}
