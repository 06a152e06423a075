import { sql } from 'kysely';
import type { CatalogDialect } from './dialect.js';
import type { CatalogDb } from './catalog.js';
import { LOCK_CLASS } from './process-coordination.js';

/**
 * Catalog tables read as queues by id (`after` the last id read), whose rows must therefore
 * become visible in id order: a row committed after a higher id was read would be skipped.
 */
export enum AppendOrderedTable {
  CaptureLog = 101,
  WarehouseOutbox = 102,
}

/**
 * Makes the calling transaction's appends (`trx`, a transaction) to `table` the only ones under way until it ends.
 * On PostgreSQL, transactions of several connections (and processes) take ids from a sequence
 * and commit in any order; holding this lock from before the first id is taken until the commit
 * makes ids visible in their order. SQLite runs one write transaction at a time already.
 */
export async function holdAppendOrder(trx: CatalogDb, dialect: CatalogDialect, table: AppendOrderedTable): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql`SELECT pg_advisory_xact_lock(${LOCK_CLASS}, ${table})`.execute(trx);
}
