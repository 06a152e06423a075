import type { Kysely } from 'kysely';
import type { CatalogMigration } from './index.js';
import { withSerialId } from './columns.js';

/**
 * Accepted events waiting for the warehouse. Capture commits them here in the same transaction
 * as their person changes — durable at acknowledgement — and the warehouse sync moves them in
 * large batches; every warehouse read moves what is pending first.
 */
export const pendingEventsMigration: CatalogMigration = {
  async up(db: Kysely<unknown>, dialect) {
    await withSerialId(db.schema.createTable('pending_events'), dialect)
      .addColumn('team_id', 'integer', (col) => col.notNull())
      .addColumn('uuid', 'text', (col) => col.notNull())
      .addColumn('row', 'text', (col) => col.notNull())
      .execute();
  },
};
