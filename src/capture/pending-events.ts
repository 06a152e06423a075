import type { CatalogDb } from '../storage/catalog/catalog.js';
import type { EventRow, SerialisedEventRow } from './event-writer.js';

/** Requests per insert statement: well under SQLite's and PostgreSQL's bound-parameter limits. */
const CHUNK = 300;

/**
 * Commits the accepted events of some capture requests of one project to the catalog's pending
 * queue, in the capture transaction: a row per request, its events as JSON lines.
 */
export async function appendPendingEvents(db: CatalogDb, teamId: number, requests: readonly EventRow[][]): Promise<void> {
  const batches = requests
    .filter((rows) => rows.length > 0)
    .map((rows) => ({
      team_id: teamId,
      uuids: rows.map((row) => row.uuid).join('\n'),
      rows: rows.map((row) => JSON.stringify(row)).join('\n'),
    }));
  for (let index = 0; index < batches.length; index += CHUNK) {
    await db.insertInto('pending_event_batches').values(batches.slice(index, index + CHUNK)).execute();
  }
}

/** The pending requests after queue id `after`, oldest first, as event rows; `lastId` is null when none wait. */
export async function readPendingEvents(
  db: CatalogDb,
  after: number,
  requests: number,
): Promise<{ lastId: number | null; requests: number; rows: SerialisedEventRow[] }> {
  const batches = await db
    .selectFrom('pending_event_batches')
    .selectAll()
    .where('id', '>', after)
    .orderBy('id')
    .limit(requests)
    .execute();
  const rows: SerialisedEventRow[] = [];
  for (const batch of batches) {
    const teamId = Number(batch.team_id);
    const uuids = batch.uuids.split('\n');
    const lines = batch.rows.split('\n');
    for (let index = 0; index < uuids.length; index++) rows.push({ teamId, uuid: uuids[index]!, json: lines[index]! });
  }
  const last = batches[batches.length - 1];
  return { lastId: last ? Number(last.id) : null, requests: batches.length, rows };
}
