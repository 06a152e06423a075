import type { Kysely } from 'kysely';
import type { CatalogMigration } from './index.js';
import { withSerialId } from './columns.js';

/** The activity log and the queued event-deletion tasks of the persons API. */
export const personsApiMigration: CatalogMigration = {
  async up(db: Kysely<unknown>, dialect) {
    // The serial id orders entries written within the same millisecond; `uuid` is the public id.
    await withSerialId(db.schema.createTable('activity_log'), dialect)
      .addColumn('uuid', 'text', (col) => col.notNull().unique())
      .addColumn('team_id', 'integer', (col) => col.notNull())
      .addColumn('scope', 'text', (col) => col.notNull())
      .addColumn('item_id', 'text', (col) => col.notNull())
      .addColumn('activity', 'text', (col) => col.notNull())
      .addColumn('user_id', 'integer')
      .addColumn('detail', 'text', (col) => col.notNull())
      .addColumn('created_at', 'text', (col) => col.notNull())
      .execute();
    await db.schema.createIndex('activity_log_item').on('activity_log').columns(['team_id', 'scope', 'item_id']).execute();
    await db.schema.createIndex('activity_log_scope').on('activity_log').columns(['team_id', 'scope']).execute();

    // One row per DELETE with delete_events; `distinct_ids` is the person's ids when it was deleted,
    // because the person and its links are gone by the time the task runs.
    await withSerialId(db.schema.createTable('event_deletion_tasks'), dialect)
      .addColumn('team_id', 'integer', (col) => col.notNull())
      .addColumn('person_uuid', 'text', (col) => col.notNull())
      .addColumn('distinct_ids', 'text', (col) => col.notNull())
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addColumn('created_by_id', 'integer')
      .addColumn('delete_verified_at', 'text')
      .addColumn('attempts', 'integer', (col) => col.notNull().defaultTo(0))
      .addColumn('last_error', 'text')
      .execute();
    await db.schema.createIndex('event_deletion_tasks_team').on('event_deletion_tasks').columns(['team_id', 'created_at']).execute();
    await db.schema.createIndex('event_deletion_tasks_pending').on('event_deletion_tasks').column('delete_verified_at').execute();
  },
};
