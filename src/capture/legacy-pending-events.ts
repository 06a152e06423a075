import type { CatalogDb } from '../storage/catalog/catalog.js';
import { isoToMicros } from '../util/iso-time.js';
import { EventRowBuffer, type EventRow } from './event-row-buffer.js';
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
      for (const line of batch.rows.split('\n')) rows.add(eventRowOfLegacyLine(teamId, line));
    }
    await writer.insertNew(rows);
    await db
      .deleteFrom(TABLE)
      .where('id', '<=', Number(batches[batches.length - 1]!.id))
      .execute();
  }
  await db.schema.dropTable(TABLE).execute();
}

/** A row as those builds wrote it: JSON, the times as ClickHouse DateTime64 text. */
type LegacyEventRow = Omit<EventRow, 'timestamp' | 'created_at' | 'person_created_at'> & {
  timestamp: string;
  created_at: string;
  person_created_at: string;
};

function eventRowOfLegacyLine(teamId: number, line: string): EventRow {
  const legacy = JSON.parse(line) as LegacyEventRow;
  return {
    ...legacy,
    team_id: teamId,
    timestamp: clickhouseTimeToMicros(legacy.timestamp),
    created_at: clickhouseTimeToMicros(legacy.created_at),
    person_created_at: clickhouseTimeToMicros(legacy.person_created_at),
  };
}

/** ClickHouse DateTime64 text in UTC (`2024-01-02 03:04:05.678901`) as epoch microseconds. */
function clickhouseTimeToMicros(text: string): number {
  return isoToMicros(`${text.replace(' ', 'T')}Z`);
}
