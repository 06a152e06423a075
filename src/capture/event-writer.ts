import type { Warehouse } from '../storage/warehouse/warehouse.js';
import { CoalescingRunner } from '../util/coalescing-runner.js';

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

/**
 * Group commit into the warehouse: concurrent requests share one insert, and each request's
 * promise settles once the insert that holds its rows is durable. Rows whose (project, uuid) is
 * already stored — or repeated within the pass — are dropped, so SDK retries are idempotent.
 */
export class EventWriter {
  private queued: EventRow[] = [];
  private readonly runner: CoalescingRunner;

  constructor(private readonly warehouse: Warehouse) {
    this.runner = new CoalescingRunner(() => this.writeQueued());
  }

  write(rows: readonly EventRow[]): Promise<void> {
    if (rows.length === 0) return Promise.resolve();
    this.queued.push(...rows);
    return this.runner.run();
  }

  private async writeQueued(): Promise<void> {
    const rows = this.queued;
    this.queued = [];
    if (rows.length === 0) return;
    const stored = await this.storedKeys(rows);
    const fresh: EventRow[] = [];
    for (const row of rows) {
      const key = `${row.team_id}:${row.uuid}`;
      if (stored.has(key)) continue;
      stored.add(key);
      fresh.push(row);
    }
    await this.warehouse.insert('events', fresh);
  }

  private async storedKeys(rows: readonly EventRow[]): Promise<Set<string>> {
    const teams = [...new Set(rows.map((row) => row.team_id))];
    const uuids = [...new Set(rows.map((row) => row.uuid))];
    // The alias must not be `uuid`: ClickHouse would apply it inside WHERE too.
    const found = await this.warehouse.query<{ team_id: string; stored_uuid: string }>(
      `SELECT team_id, toString(uuid) AS stored_uuid FROM events
       WHERE team_id IN {teams:Array(Int64)} AND uuid IN {uuids:Array(UUID)}`,
      { teams, uuids },
    );
    return new Set(found.map((row) => `${row.team_id}:${row.stored_uuid}`));
  }
}
