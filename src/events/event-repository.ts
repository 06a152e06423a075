import type { Warehouse } from '../storage/warehouse/warehouse.js';
import type { EventScope } from './event-list-scope.js';
import type { TimeWindow } from './event-time-windows.js';
import { warehouseTime } from './event-time.js';

/** An event's place in the list: its time (DateTime64(6) text) and UUID. */
export interface EventKey {
  time: string;
  uuid: string;
}

/** An event as the warehouse stores it (`properties` is its JSON text). */
export interface StoredEvent {
  uuid: string;
  event: string;
  distinctId: string;
  properties: string;
  time: string;
  elementsChain: string;
}

interface EventRow {
  event_uuid: string;
  event: string;
  distinct_id: string;
  properties: string;
  event_time: string;
  elements_chain: string;
}

const DATETIME = "DateTime64(6, 'UTC')";

// Aliases differ from the column names: ClickHouse would read an alias named like a column in WHERE.
const EVENT_COLUMNS = `toString(uuid) AS event_uuid, event, distinct_id, properties,
  toString(timestamp) AS event_time, elements_chain`;

function toStoredEvent(row: EventRow): StoredEvent {
  return {
    uuid: row.event_uuid,
    event: row.event,
    distinctId: row.distinct_id,
    properties: row.properties,
    time: row.event_time,
    elementsChain: row.elements_chain,
  };
}

/** Warehouse reads of the events list. */
export class EventRepository {
  constructor(private readonly warehouse: Warehouse) {}

  /**
   * Up to `limit` keys of matching events inside one window, in list order. Only the time and
   * UUID are read (and what the filters need), so scanning a window stays cheap; the page's
   * other columns are read by `byKeys` for the page alone.
   */
  async keys(scope: EventScope, window: TimeWindow, limit: number): Promise<EventKey[]> {
    const params = scope.params.all;
    const conditions = [...scope.conditions];
    if (window.from !== null) {
      params.window_from = warehouseTime(window.from);
      conditions.push(`e.timestamp >= {window_from:${DATETIME}}`);
    }
    if (window.to !== null) {
      params.window_to = warehouseTime(window.to);
      conditions.push(`e.timestamp < {window_to:${DATETIME}}`);
    }
    params.page_limit = limit;
    const direction = scope.newestFirst ? 'DESC' : 'ASC';
    const rows = await this.warehouse.query<{ key_time: string; key_uuid: string }>(
      `SELECT toString(e.timestamp) AS key_time, toString(e.uuid) AS key_uuid
       ${scope.from}
       WHERE ${conditions.join('\n  AND ')}
       ORDER BY e.timestamp ${direction}, e.uuid ${direction}
       LIMIT {page_limit:UInt32}`,
      params,
    );
    return rows.map((row) => ({ time: row.key_time, uuid: row.key_uuid }));
  }

  /** The time of the project's first event before `before`, or null when there is none. */
  async earliestTime(teamId: number, before: number): Promise<string | null> {
    const [row] = await this.warehouse.query<{ first_time: string; events: string }>(
      `SELECT toString(min(timestamp)) AS first_time, count() AS events
       FROM events WHERE team_id = {team_id:Int64} AND timestamp < {before:${DATETIME}}`,
      { team_id: teamId, before: warehouseTime(before) },
    );
    return row && Number(row.events) > 0 ? row.first_time : null;
  }

  /** The events of these keys (in no particular order), read from the span of time they cover. */
  async byKeys(teamId: number, keys: readonly EventKey[]): Promise<StoredEvent[]> {
    if (keys.length === 0) return [];
    const times = keys.map((key) => key.time).sort();
    const rows = await this.warehouse.query<EventRow>(
      `SELECT ${EVENT_COLUMNS}
       FROM events
       WHERE team_id = {team_id:Int64}
         AND timestamp >= {first:${DATETIME}} AND timestamp <= {last:${DATETIME}}
         AND uuid IN {uuids:Array(UUID)}
       LIMIT 1 BY uuid`,
      { team_id: teamId, first: times[0], last: times[times.length - 1], uuids: keys.map((key) => key.uuid) },
    );
    return rows.map(toStoredEvent);
  }

  async findByUuid(teamId: number, uuid: string): Promise<StoredEvent | undefined> {
    const [row] = await this.warehouse.query<EventRow>(`SELECT ${EVENT_COLUMNS} FROM events WHERE team_id = {team_id:Int64} AND uuid = {uuid:UUID} LIMIT 1`, {
      team_id: teamId,
      uuid,
    });
    return row && toStoredEvent(row);
  }
}
