import type { Kysely } from 'kysely';
import type { CatalogMigration } from './index.js';

/** The last build that converts what builds before 2026-11-23 left waiting (see README, Upgrades). */
export const LAST_CONVERTING_BUILD = '4ce189d';

/** A catalog this build cannot take as it is; the message says what to do. */
export class UpgradeRefused extends Error {}

/**
 * Builds before 2026-11-23 left work for their successors to convert: events waiting for the
 * warehouse in `pending_event_batches`, capture requests in an embedded catalog's `capture_log`
 * (the embedded log is files since), replica writes as JSON lines in `warehouse_outbox`. Builds up
 * to LAST_CONVERTING_BUILD converted them at start-up; later ones do not, so a catalog still
 * holding any is refused here, before anything touches it, rather than losing them. The emptied
 * pending-events table is dropped: nothing reads it. The PostgreSQL catalog's `capture_log` is
 * its capture log and stays.
 */
export const legacyQueuesMigration: CatalogMigration = {
  // biome-ignore lint/suspicious/noExplicitAny: a migration reads the schema of its time, not today's typed one
  async up(db: Kysely<any>, dialect) {
    const tables = new Set((await db.introspection.getTables()).map((table) => table.name));
    const left: string[] = [];
    if (tables.has('pending_event_batches') && (await db.selectFrom('pending_event_batches').select('id').limit(1).executeTakeFirst())) {
      left.push('events waiting for the warehouse (pending_event_batches)');
    }
    if (dialect === 'sqlite' && (await db.selectFrom('capture_log').select('id').limit(1).executeTakeFirst())) {
      left.push('capture requests in the catalog table capture_log');
    }
    if (await db.selectFrom('warehouse_outbox').select('id').where('encoded', 'is', null).limit(1).executeTakeFirst()) {
      left.push('replica writes as JSON lines (warehouse_outbox)');
    }
    if (left.length > 0) {
      throw new UpgradeRefused(
        `This catalog still holds ${left.join(', ')}: work a Tally build older than 2026-11-23 left for its successors to convert, ` +
          `which this build no longer does. Start it once with Tally at commit ${LAST_CONVERTING_BUILD}, stop that server (SIGTERM), ` +
          'then start this build (README, Upgrades).',
      );
    }
    await db.schema.dropTable('pending_event_batches').ifExists().execute();
  },
};
