import type { Kysely } from 'kysely';
import type { CatalogMigration } from './index.js';
import { withSerialId } from './columns.js';

/** Actions, cohorts and the members of static cohorts. */
export const actionsCohortsMigration: CatalogMigration = {
  async up(db: Kysely<unknown>, dialect) {
    // Serial ids: a deleted action's or cohort's id is never handed out again.
    await withSerialId(db.schema.createTable('actions'), dialect)
      .addColumn('team_id', 'integer', (col) => col.notNull())
      .addColumn('name', 'text')
      .addColumn('description', 'text', (col) => col.notNull())
      .addColumn('steps', 'text', (col) => col.notNull())
      .addColumn('deleted', 'integer', (col) => col.notNull().defaultTo(0))
      .addColumn('created_by_id', 'integer')
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addColumn('updated_at', 'text', (col) => col.notNull())
      .execute();
    await db.schema.createIndex('actions_team').on('actions').columns(['team_id', 'deleted']).execute();

    // `filters` is the normalised property tree; `groups` keeps the legacy form as it was sent.
    await withSerialId(db.schema.createTable('cohorts'), dialect)
      .addColumn('team_id', 'integer', (col) => col.notNull())
      .addColumn('name', 'text')
      .addColumn('description', 'text', (col) => col.notNull())
      .addColumn('filters', 'text', (col) => col.notNull())
      .addColumn('groups', 'text', (col) => col.notNull())
      .addColumn('is_static', 'integer', (col) => col.notNull().defaultTo(0))
      .addColumn('deleted', 'integer', (col) => col.notNull().defaultTo(0))
      .addColumn('created_by_id', 'integer')
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addColumn('updated_at', 'text', (col) => col.notNull())
      .execute();
    await db.schema.createIndex('cohorts_team').on('cohorts').columns(['team_id', 'deleted']).execute();

    // Source of truth of static membership; the warehouse holds a replica for joins.
    await db.schema
      .createTable('static_cohort_members')
      .addColumn('cohort_id', 'integer', (col) => col.notNull())
      .addColumn('team_id', 'integer', (col) => col.notNull())
      .addColumn('person_uuid', 'text', (col) => col.notNull())
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addPrimaryKeyConstraint('static_cohort_members_pk', ['cohort_id', 'person_uuid'])
      .execute();
  },
};
