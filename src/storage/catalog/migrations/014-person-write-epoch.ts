import { sql, type Kysely } from 'kysely';
import type { CatalogMigration } from './index.js';

/**
 * One row counting the transactions that wrote persons: every person write takes its row lock
 * first and counts itself, so person writes of every process run one after another, and the
 * ingestion consumer can tell whether persons it holds in memory changed since it read them.
 */
export const personWriteEpochMigration: CatalogMigration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('person_write_epoch')
      .addColumn('id', 'integer', (col) => col.primaryKey())
      .addColumn('epoch', 'bigint', (col) => col.notNull())
      .execute();
    await sql`INSERT INTO person_write_epoch (id, epoch) VALUES (1, 0)`.execute(db);
  },
};
