import type { Kysely } from 'kysely';
import type { CatalogMigration } from './index.js';

/** A key may name the organizations it is limited to, as PostHog's keys do. */
export const accountsPlatformMigration: CatalogMigration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('personal_api_keys').addColumn('scoped_organizations', 'text').execute();
  },
};
