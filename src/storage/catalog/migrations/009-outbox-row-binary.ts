import type { Kysely } from 'kysely';
import type { CatalogMigration } from './index.js';

/**
 * The outbox holds replica rows in RowBinary, as the relay inserts them: the warehouse parsed
 * JSON lines at twice the cost. Rows written before keep their JSON lines in `row`.
 */
export const outboxRowBinaryMigration: CatalogMigration = {
  async up(db: Kysely<unknown>, dialect) {
    await db.schema
      .alterTable('warehouse_outbox')
      .addColumn('encoded', dialect === 'sqlite' ? 'blob' : 'bytea')
      .execute();
  },
};
