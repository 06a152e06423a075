import type { Kysely } from 'kysely';
import type { CatalogMigration } from './index.js';
import { withSerialId } from './columns.js';

export const accountsMigration: CatalogMigration = {
  async up(db: Kysely<unknown>, dialect) {
    await db.schema
      .createTable('organizations')
      .addColumn('id', 'text', (col) => col.primaryKey())
      .addColumn('name', 'text', (col) => col.notNull())
      .addColumn('created_at', 'text', (col) => col.notNull())
      .execute();

    await withSerialId(db.schema.createTable('users'), dialect)
      .addColumn('uuid', 'text', (col) => col.notNull().unique())
      .addColumn('email', 'text', (col) => col.notNull().unique())
      .addColumn('first_name', 'text', (col) => col.notNull())
      .addColumn('organization_id', 'text', (col) => col.notNull().references('organizations.id'))
      .addColumn('is_active', 'integer', (col) => col.notNull().defaultTo(1))
      .addColumn('created_at', 'text', (col) => col.notNull())
      .execute();

    await withSerialId(db.schema.createTable('projects'), dialect)
      .addColumn('uuid', 'text', (col) => col.notNull().unique())
      .addColumn('organization_id', 'text', (col) => col.notNull().references('organizations.id'))
      .addColumn('name', 'text', (col) => col.notNull())
      .addColumn('api_token', 'text', (col) => col.notNull().unique())
      .addColumn('timezone', 'text', (col) => col.notNull())
      .addColumn('week_start_day', 'integer')
      .addColumn('test_account_filters', 'text', (col) => col.notNull())
      .addColumn('person_display_name_properties', 'text')
      .addColumn('ingested_event', 'integer', (col) => col.notNull().defaultTo(0))
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addColumn('updated_at', 'text', (col) => col.notNull())
      .execute();

    await db.schema
      .createTable('personal_api_keys')
      .addColumn('id', 'text', (col) => col.primaryKey())
      .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id'))
      .addColumn('label', 'text', (col) => col.notNull())
      .addColumn('secure_value', 'text', (col) => col.notNull().unique())
      .addColumn('mask_value', 'text', (col) => col.notNull())
      .addColumn('scopes', 'text', (col) => col.notNull())
      .addColumn('scoped_teams', 'text')
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addColumn('last_used_at', 'text')
      .execute();
  },
};
