import type { Kysely } from 'kysely';
import type { CatalogMigration } from './index.js';
import { withSerialId } from './columns.js';

/**
 * The capture log: accepted requests, committed before they are acknowledged and processed
 * (persons, warehouse, definitions) behind the acknowledgement in large batches. Rows leave the
 * log in the transaction that commits their person changes.
 */
export const captureLogMigration: CatalogMigration = {
  async up(db: Kysely<unknown>, dialect) {
    await withSerialId(db.schema.createTable('capture_log'), dialect)
      .addColumn('team_id', 'integer', (col) => col.notNull())
      .addColumn('received_at', 'bigint', (col) => col.notNull())
      .addColumn('event_count', 'integer', (col) => col.notNull())
      .addColumn('events', 'text', (col) => col.notNull())
      .execute();
  },
};
