import type { Kysely } from 'kysely';
import type { CatalogMigration } from './index.js';
import { withSerialId } from './columns.js';

/**
 * What ingestion worked around, per project: warnings (a timestamp replaced, a merge refused),
 * and the events it could not store at all, kept whole with the error so they can be looked at
 * and sent again.
 */
export const ingestionFailuresMigration: CatalogMigration = {
  async up(db: Kysely<unknown>, dialect) {
    await withSerialId(db.schema.createTable('ingestion_warnings'), dialect)
      .addColumn('team_id', 'integer', (col) => col.notNull())
      .addColumn('type', 'text', (col) => col.notNull())
      .addColumn('details', 'text', (col) => col.notNull())
      .addColumn('timestamp', 'text', (col) => col.notNull())
      .execute();
    await db.schema.createIndex('ingestion_warnings_team_time').on('ingestion_warnings').columns(['team_id', 'timestamp']).execute();

    await withSerialId(db.schema.createTable('dead_letter_events'), dialect)
      .addColumn('team_id', 'integer', (col) => col.notNull())
      .addColumn('event_uuid', 'text')
      .addColumn('event', 'text')
      .addColumn('distinct_id', 'text')
      .addColumn('payload', 'text', (col) => col.notNull())
      .addColumn('error', 'text', (col) => col.notNull())
      .addColumn('received_at', 'bigint', (col) => col.notNull())
      .addColumn('failed_at', 'text', (col) => col.notNull())
      .execute();
    await db.schema.createIndex('dead_letter_events_team_uuid').on('dead_letter_events').columns(['team_id', 'event_uuid']).execute();
  },
};
