import fs from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { sql, type Transaction } from 'kysely';
import type { CatalogDb } from './catalog.js';
import type { CatalogSchema } from './schema.js';

/**
 * SQLite transactions committed without waiting on the disk, made durable later by syncing the
 * WAL off the event loop. The connection otherwise runs `synchronous = FULL`, so everything else
 * is durable on commit as before.
 *
 * Why: a FULL commit syncs the WAL on the main thread, and a batch of captured events commits
 * megabytes of person pages at once. Its source stays in the capture log until `sync` resolves,
 * so a commit lost to a power failure is made again from the log.
 *
 * These transactions also keep their temporary files in memory. Each multi-row insert of a batch
 * has SQLite journal the pages it changes, so that the statement alone can be undone; past 64 KiB
 * that statement journal goes to a temporary file, and a capture batch wrote about 3 KB of them per
 * event (twice what its commit writes to the WAL), all through system calls.
 */
export class DeferredWalSync {
  private committed = 0;
  private synced = 0;
  private wal: Promise<FileHandle> | null = null;

  constructor(private readonly walFile: string) {}

  /** Runs `work` in a transaction whose commit is durable once a later `sync()` resolves. */
  transaction<T>(db: CatalogDb, work: (trx: Transaction<CatalogSchema>) => Promise<T>): Promise<T> {
    // The safety level cannot change inside a transaction: the held connection brackets it.
    return db.connection().execute(async (connection) => {
      await sql`PRAGMA synchronous = NORMAL`.execute(connection);
      await sql`PRAGMA temp_store = MEMORY`.execute(connection);
      try {
        return await connection.transaction().execute(work);
      } finally {
        this.committed += 1;
        await sql`PRAGMA temp_store = DEFAULT`.execute(connection);
        await sql`PRAGMA synchronous = FULL`.execute(connection);
      }
    });
  }

  /** Makes every transaction committed so far durable. */
  async sync(): Promise<void> {
    const target = this.committed;
    if (this.synced >= target) return;
    // The WAL keeps its file while the database is open; syncing it through any descriptor syncs
    // the frames SQLite wrote.
    this.wal ??= fs.promises.open(this.walFile, 'r+').catch((error: unknown) => {
      // A failed open is not kept: the next sync opens again.
      this.wal = null;
      throw error;
    });
    await (await this.wal).datasync();
    this.synced = Math.max(this.synced, target);
  }

  async close(): Promise<void> {
    const wal = this.wal;
    this.wal = null;
    // An open that failed has nothing to close.
    await (await wal?.catch(() => null))?.close();
  }
}
