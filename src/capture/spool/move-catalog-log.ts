import type { CatalogDb } from '../../storage/catalog/catalog.js';
import { loggedEventsBytes, type CaptureLog } from '../capture-log.js';

/** Entries per move: a few megabytes of events. */
const CHUNK = 200;

/**
 * Builds before the file log kept embedded capture logs in the catalog table `capture_log`.
 * Entries such a build left unprocessed move into the file log at start-up, oldest first. A crash
 * between an append and its delete moves some entries twice, and processing an entry again is
 * safe (see IngestionConsumer).
 */
export async function moveCatalogLogEntries(db: CatalogDb, log: CaptureLog): Promise<void> {
  for (;;) {
    const rows = await db.selectFrom('capture_log').selectAll().orderBy('id').limit(CHUNK).execute();
    if (rows.length === 0) return;
    await log.append(
      rows.map((row) => ({
        teamId: Number(row.team_id),
        receivedAt: Number(row.received_at),
        eventCount: Number(row.event_count),
        events: loggedEventsBytes(row.events),
      })),
    );
    await db
      .deleteFrom('capture_log')
      .where('id', '<=', Number(rows[rows.length - 1]!.id))
      .execute();
  }
}
