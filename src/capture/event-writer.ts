import type { Warehouse } from '../storage/warehouse/warehouse.js';

/** A row of the warehouse `events` table, in its JSONEachRow form. */
export interface EventRow {
  uuid: string;
  team_id: number;
  event: string;
  distinct_id: string;
  properties: string;
  timestamp: string;
  created_at: string;
  elements_chain: string;
  person_id: string;
  person_properties: string;
  person_created_at: string;
  person_mode: string;
  $group_0: string;
  $group_1: string;
  $group_2: string;
  $group_3: string;
  $group_4: string;
  $session_id: string;
}

/** An event row already serialised as one JSONEachRow line, with its dedup key. */
export interface SerialisedEventRow {
  teamId: number;
  uuid: string;
  json: string;
}

/**
 * Inserts event rows into the warehouse, dropping rows whose (project, uuid) is already stored
 * or repeated earlier in the same call, so SDK retries are idempotent. Callers serialise calls
 * (the warehouse sync does), so the check and the insert see each other's effects.
 */
export class EventWriter {
  constructor(private readonly warehouse: Warehouse) {}

  async insertNew(rows: readonly SerialisedEventRow[]): Promise<void> {
    if (rows.length === 0) return;
    const stored = await this.storedKeys(rows);
    const fresh: string[] = [];
    for (const row of rows) {
      const key = `${row.teamId}:${row.uuid}`;
      if (stored.has(key)) continue;
      stored.add(key);
      fresh.push(row.json);
    }
    await this.warehouse.insertJsonEachRow('events', fresh.join('\n'));
  }

  private async storedKeys(rows: readonly SerialisedEventRow[]): Promise<Set<string>> {
    const teams = [...new Set(rows.map((row) => row.teamId))];
    const uuids = [...new Set(rows.map((row) => row.uuid))];
    // event_uuids is ordered by (team_id, uuid), so this reads only the index ranges of these
    // uuids. The alias must not be `uuid`: ClickHouse would apply it inside WHERE too.
    const found = await this.warehouse.query<{ team_id: string; stored_uuid: string }>(
      `SELECT team_id, toString(uuid) AS stored_uuid FROM event_uuids
       WHERE team_id IN {teams:Array(Int64)} AND uuid IN {uuids:Array(UUID)}`,
      { teams, uuids },
    );
    return new Set(found.map((row) => `${row.team_id}:${row.stored_uuid}`));
  }
}
