import type { Kysely } from 'kysely';
import type { CatalogMigration } from './index.js';

/**
 * The unfiltered person list is served from the catalog: a page is found on an index in list
 * order (created_at, then id — both in the index, so PostgreSQL needs no sort either), and the
 * total is counted on the narrowest index of the project's persons.
 */
export const personListIndexesMigration: CatalogMigration = {
  async up(db: Kysely<unknown>) {
    await db.schema.dropIndex('persons_team_created').execute();
    await db.schema.createIndex('persons_list_order').on('persons').columns(['team_id', 'created_at', 'id']).execute();
    await db.schema.createIndex('persons_team').on('persons').column('team_id').execute();
  },
};
