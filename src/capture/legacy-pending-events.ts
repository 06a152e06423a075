import type { CatalogDb } from '../storage/catalog/catalog.js';
import { EventRowBuffer } from './event-row-buffer.js';
import type { EventWriter } from './event-writer.js';

const TABLE = 'pending_event_batches';

/** Requests per warehouse insert. */
const CHUNK = 300;

/**
 * Before the capture log, capture committed processed event rows to `pending_event_batches`
 * and moved them to the warehouse behind the acknowledgement. A data directory from then may
 * still hold some: they are moved at start-up, before anything else is processed, and the
 * emptied table is dropped, so this runs once per catalog.
 */
export async function drainLegacyPendingEvents(db: CatalogDb, writer: EventWriter): Promise<void> {
  const tables = await db.introspection.getTables();
  if (!tables.some((table) => table.name === TABLE)) return;
  for (;;) {
    const batches = await db.selectFrom(TABLE).selectAll().orderBy('id').limit(CHUNK).execute();
    if (batches.length === 0) break;
    const rows = new EventRowBuffer();
    for (const batch of batches) {
      const teamId = Number(batch.team_id);
      const uuids = batch.uuids.split('\n');
      const lines = batch.rows.split('\n');
      for (let index = 0; index < uuids.length; index++) rows.add(teamId, uuids[index]!, lines[index]!);
    }
    await writer.insertNew(rows);
    await db.deleteFrom(TABLE).where('id', '<=', Number(batches[batches.length - 1]!.id)).execute();
  }
  await db.schema.dropTable(TABLE).execute();
}
