import type { Kysely } from 'kysely';
import type { CatalogMigration } from './index.js';
import { withSerialId } from './columns.js';

/**
 * Accepted events wait for the warehouse a request at a time: one row per capture request
 * instead of one per event, so committing a request costs one row write. Events still waiting
 * in the per-event queue become one-event batches, in their order.
 */
export const pendingEventBatchesMigration: CatalogMigration = {
  // biome-ignore lint/suspicious/noExplicitAny: a migration builds the schema of its time, not today's typed one
  async up(db: Kysely<any>, dialect) {
    await withSerialId(db.schema.createTable('pending_event_batches'), dialect)
      .addColumn('team_id', 'integer', (col) => col.notNull())
      .addColumn('uuids', 'text', (col) => col.notNull())
      .addColumn('rows', 'text', (col) => col.notNull())
      .execute();
    await db
      .insertInto('pending_event_batches')
      .columns(['team_id', 'uuids', 'rows'])
      .expression(db.selectFrom('pending_events').select(['team_id', 'uuid', 'row']).orderBy('id'))
      .execute();
    await db.schema.dropTable('pending_events').execute();
  },
};
