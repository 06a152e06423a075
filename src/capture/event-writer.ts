import type { Warehouse } from '../storage/warehouse/warehouse.js';
import type { WarehouseColumn } from '../storage/warehouse/row-binary.js';
import { EVENT_ROW_COLUMNS, type EventRowBuffer } from './event-row-buffer.js';

/** What makes an event a duplicate: its project and uuid. */
const EVENT_KEY_COLUMNS: readonly WarehouseColumn[] = [
  { name: 'team_id', type: 'Int64' },
  { name: 'uuid', type: 'UUID' },
];

/**
 * Inserts event rows into the warehouse, dropping rows whose (project, uuid) is already stored
 * or repeated earlier in the same call, so SDK retries are idempotent. Callers serialise calls
 * (the ingestion consumer does), so the check and the insert see each other's effects.
 *
 * Stored uuids are looked up in `event_uuids`, which a materialized view fills from each events
 * insert. The view's part is written after the events' part, so an insert cut short (a crash, a
 * failed write) can leave events whose uuids the view never recorded. From start-up, and after
 * any failure, until the caller reports a complete pass (`settled`), the writer therefore checks
 * the events table itself and records the uuids it finds there, bringing `event_uuids` back in
 * step before it is trusted again.
 */
export class EventWriter {
  private uncertain = true;

  constructor(private readonly warehouse: Warehouse) {}

  async insertNew(rows: EventRowBuffer): Promise<void> {
    if (rows.count === 0) return;
    try {
      const stored = await this.storedKeys(this.uncertain ? 'events' : 'event_uuids', rows);
      const skipped = new Set<number>();
      for (let row = 0; row < rows.count; row++) {
        const key = `${rows.teamIdOf(row)}:${rows.uuidOf(row)}`;
        if (stored.has(key)) skipped.add(row);
        else stored.add(key);
      }
      await this.warehouse.insertRowBinary('events', EVENT_ROW_COLUMNS, rows.encoded(skipped));
      if (this.uncertain) {
        const teams = [...new Set(Array.from({ length: rows.count }, (_, row) => rows.teamIdOf(row)))];
        const uuids = [...new Set(Array.from({ length: rows.count }, (_, row) => rows.uuidOf(row)))];
        await this.warehouse.command(
          `INSERT INTO event_uuids SELECT team_id, uuid FROM events
           WHERE team_id IN {teams:Array(Int64)} AND uuid IN {uuids:Array(UUID)}`,
          { teams, uuids },
        );
      }
    } catch (error) {
      this.uncertain = true;
      throw error;
    }
  }

  /** Every event that was waiting has been written: `event_uuids` is complete again. */
  settled(): void {
    this.uncertain = false;
  }

  private async storedKeys(table: 'events' | 'event_uuids', rows: EventRowBuffer): Promise<Set<string>> {
    // event_uuids is ordered by (team_id, uuid), so it reads only the index ranges of these uuids;
    // events is ordered by day, so there the whole uuid column is read.
    const keys: [number, string][] = [];
    for (let row = 0; row < rows.count; row++) keys.push([rows.teamIdOf(row), rows.uuidOf(row)]);
    const found = await this.warehouse.storedKeys(table, EVENT_KEY_COLUMNS, keys);
    return new Set(found.map(([teamId, uuid]) => `${teamId}:${uuid}`));
  }
}
