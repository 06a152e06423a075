import type { CatalogDb } from '../storage/catalog/catalog.js';
import type { LoggedEvent } from './normalize-event.js';

/** One accepted capture request. */
export interface CaptureLogEntry {
  teamId: number;
  /** Epoch milliseconds. */
  receivedAt: number;
  events: LoggedEvent[];
}

/** An entry as read back, with its position in the log. */
export interface StoredCaptureLogEntry extends CaptureLogEntry {
  id: number;
}

/** Requests per insert statement: well under SQLite's and PostgreSQL's bound-parameter limits. */
const CHUNK = 200;

/** Commits accepted requests to the log, in order; durable when the returned promise resolves. */
export async function appendToCaptureLog(db: CatalogDb, entries: readonly CaptureLogEntry[]): Promise<void> {
  const rows = entries.map((entry) => ({
    team_id: entry.teamId,
    received_at: entry.receivedAt,
    event_count: entry.events.length,
    events: JSON.stringify(entry.events),
  }));
  await db.transaction().execute(async (trx) => {
    for (let index = 0; index < rows.length; index += CHUNK) {
      await trx.insertInto('capture_log').values(rows.slice(index, index + CHUNK)).execute();
    }
  });
}

/** The id of the newest entry, 0 when the log is empty. */
export async function lastCaptureLogId(db: CatalogDb): Promise<number> {
  const row = await db.selectFrom('capture_log').select('id').orderBy('id', 'desc').limit(1).executeTakeFirst();
  return row ? Number(row.id) : 0;
}

/**
 * The oldest entries after id `after` up to id `through`, in order, until about `events` events
 * (at least one entry when any waits).
 */
export async function readCaptureLog(db: CatalogDb, events: number, after: number, through: number): Promise<StoredCaptureLogEntry[]> {
  const sizes = await db
    .selectFrom('capture_log')
    .select(['id', 'event_count'])
    .where('id', '>', after)
    .where('id', '<=', through)
    .orderBy('id')
    .limit(events)
    .execute();
  let last = 0;
  let total = 0;
  for (const row of sizes) {
    if (total > 0 && total + Number(row.event_count) > events) break;
    total += Number(row.event_count);
    last = Number(row.id);
  }
  if (last === 0) return [];
  const rows = await db.selectFrom('capture_log').selectAll().where('id', '>', after).where('id', '<=', last).orderBy('id').execute();
  return rows.map((row) => ({
    id: Number(row.id),
    teamId: Number(row.team_id),
    receivedAt: Number(row.received_at),
    events: JSON.parse(row.events) as LoggedEvent[],
  }));
}

/** Removes the entries up to `id`, in the transaction that commits their processing. */
export async function removeFromCaptureLog(db: CatalogDb, id: number): Promise<void> {
  await db.deleteFrom('capture_log').where('id', '<=', id).execute();
}
