import type { Kysely } from 'kysely';
import type { CatalogMigration } from './index.js';
import { withSerialId } from './columns.js';

/** Saved insights, dashboards with their tiles (insights and text), and annotations. */
export const savedInsightsMigration: CatalogMigration = {
  async up(db: Kysely<unknown>, dialect) {
    // `kind` is derived from query/filters at write time, so the list filters on it without JSON SQL.
    await withSerialId(db.schema.createTable('insights'), dialect)
      .addColumn('team_id', 'integer', (col) => col.notNull())
      .addColumn('short_id', 'text', (col) => col.notNull().unique())
      .addColumn('name', 'text')
      .addColumn('derived_name', 'text')
      .addColumn('description', 'text', (col) => col.notNull())
      .addColumn('query', 'text')
      .addColumn('filters', 'text', (col) => col.notNull())
      .addColumn('kind', 'text', (col) => col.notNull())
      .addColumn('tags', 'text', (col) => col.notNull())
      .addColumn('favorited', 'integer', (col) => col.notNull().defaultTo(0))
      .addColumn('saved', 'integer', (col) => col.notNull().defaultTo(0))
      .addColumn('deleted', 'integer', (col) => col.notNull().defaultTo(0))
      .addColumn('created_by_id', 'integer')
      .addColumn('last_modified_by_id', 'integer')
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addColumn('last_modified_at', 'text', (col) => col.notNull())
      .addColumn('updated_at', 'text', (col) => col.notNull())
      // The last computed result (JSON) and when it was computed: answered until the next refresh.
      .addColumn('kept_result', 'text')
      .addColumn('last_refresh', 'text')
      .execute();
    await db.schema.createIndex('insights_team').on('insights').columns(['team_id', 'deleted', 'last_modified_at']).execute();

    await withSerialId(db.schema.createTable('dashboards'), dialect)
      .addColumn('team_id', 'integer', (col) => col.notNull())
      .addColumn('name', 'text')
      .addColumn('description', 'text', (col) => col.notNull())
      .addColumn('pinned', 'integer', (col) => col.notNull().defaultTo(0))
      .addColumn('tags', 'text', (col) => col.notNull())
      .addColumn('filters', 'text', (col) => col.notNull())
      .addColumn('variables', 'text', (col) => col.notNull())
      .addColumn('deleted', 'integer', (col) => col.notNull().defaultTo(0))
      .addColumn('created_by_id', 'integer')
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addColumn('last_accessed_at', 'text')
      .addColumn('last_refresh', 'text')
      .execute();
    await db.schema.createIndex('dashboards_team').on('dashboards').columns(['team_id', 'deleted']).execute();

    await withSerialId(db.schema.createTable('dashboard_texts'), dialect)
      .addColumn('team_id', 'integer', (col) => col.notNull())
      .addColumn('body', 'text')
      .addColumn('created_by_id', 'integer')
      .addColumn('created_at', 'text', (col) => col.notNull())
      .execute();

    // A tile shows an insight or a text; one tile per insight and dashboard, revived when re-added.
    await withSerialId(db.schema.createTable('dashboard_tiles'), dialect)
      .addColumn('team_id', 'integer', (col) => col.notNull())
      .addColumn('dashboard_id', 'integer', (col) => col.notNull())
      .addColumn('insight_id', 'integer')
      .addColumn('text_id', 'integer')
      .addColumn('color', 'text')
      .addColumn('layouts', 'text', (col) => col.notNull())
      .addColumn('deleted', 'integer', (col) => col.notNull().defaultTo(0))
      .addColumn('created_at', 'text', (col) => col.notNull())
      .execute();
    await db.schema.createIndex('dashboard_tiles_dashboard').on('dashboard_tiles').columns(['dashboard_id', 'deleted']).execute();
    await db.schema.createIndex('dashboard_tiles_insight').on('dashboard_tiles').columns(['insight_id', 'deleted']).execute();

    // organization_id lets organization-scoped annotations be listed in every project of it.
    await withSerialId(db.schema.createTable('annotations'), dialect)
      .addColumn('team_id', 'integer', (col) => col.notNull())
      .addColumn('organization_id', 'text', (col) => col.notNull())
      .addColumn('content', 'text')
      .addColumn('date_marker', 'text')
      .addColumn('creation_type', 'text', (col) => col.notNull())
      .addColumn('insight_id', 'integer')
      .addColumn('dashboard_id', 'integer')
      .addColumn('scope', 'text', (col) => col.notNull())
      .addColumn('deleted', 'integer', (col) => col.notNull().defaultTo(0))
      .addColumn('created_by_id', 'integer')
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addColumn('updated_at', 'text', (col) => col.notNull())
      .execute();
    await db.schema.createIndex('annotations_team').on('annotations').columns(['team_id', 'deleted']).execute();
    await db.schema.createIndex('annotations_organization').on('annotations').columns(['organization_id', 'scope']).execute();
  },
};
