import type { Kysely } from 'kysely';
import type { CatalogMigration } from './index.js';

/** Property definitions can be hidden from pickers or marked verified, as event definitions can. */
export const propertyDefinitionFlagsMigration: CatalogMigration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('property_definitions')
      .addColumn('hidden', 'integer', (col) => col.notNull().defaultTo(0))
      .execute();
    await db.schema
      .alterTable('property_definitions')
      .addColumn('verified', 'integer', (col) => col.notNull().defaultTo(0))
      .execute();
  },
};
