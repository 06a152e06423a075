import type { CatalogDb } from '../storage/catalog/catalog.js';
import type { EventRow } from './event-writer.js';

const CHUNK = 500;

/** Commits accepted events to the catalog's pending queue, in the capture transaction. */
export async function appendPendingEvents(db: CatalogDb, rows: readonly EventRow[]): Promise<void> {
  for (let index = 0; index < rows.length; index += CHUNK) {
    await db
      .insertInto('pending_events')
      .values(rows.slice(index, index + CHUNK).map((row) => ({ team_id: row.team_id, uuid: row.uuid, row: JSON.stringify(row) })))
      .execute();
  }
}
