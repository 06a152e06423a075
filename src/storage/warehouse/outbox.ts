import type { CatalogDb } from '../catalog/catalog.js';
import { CoalescingRunner } from '../../util/coalescing-runner.js';
import type { Warehouse } from './warehouse.js';

export type ReplicaTable = 'persons' | 'person_distinct_ids' | 'groups';

export interface OutboxEntry {
  target: ReplicaTable;
  row: Record<string, unknown>;
}

const RELAY_CHUNK = 5000;

/** Records replica writes in the catalog transaction that makes the change. */
export async function appendToOutbox(db: CatalogDb, entries: readonly OutboxEntry[]): Promise<void> {
  for (let index = 0; index < entries.length; index += 500) {
    await db
      .insertInto('warehouse_outbox')
      .values(entries.slice(index, index + 500).map((entry) => ({ target: entry.target, row: JSON.stringify(entry.row) })))
      .execute();
  }
}

/**
 * Applies outbox rows to the warehouse replicas, oldest first, stamping each with its outbox id
 * as the version, then removes them. Writers await `flush()` after committing, so the
 * warehouse is in step before they answer; start-up calls it to replay what a crash left.
 */
export class OutboxRelay {
  private readonly runner: CoalescingRunner;

  constructor(
    private readonly db: CatalogDb,
    private readonly warehouse: Warehouse,
  ) {
    this.runner = new CoalescingRunner(() => this.drain());
  }

  flush(): Promise<void> {
    return this.runner.run();
  }

  private async drain(): Promise<void> {
    for (;;) {
      const rows = await this.db.selectFrom('warehouse_outbox').selectAll().orderBy('id').limit(RELAY_CHUNK).execute();
      if (rows.length === 0) return;
      const byTarget = new Map<string, Record<string, unknown>[]>();
      for (const row of rows) {
        const list = byTarget.get(row.target) ?? [];
        list.push({ ...(JSON.parse(row.row) as Record<string, unknown>), version: Number(row.id) });
        byTarget.set(row.target, list);
      }
      for (const [target, replicaRows] of byTarget) await this.warehouse.insert(target, replicaRows);
      const lastId = Number(rows[rows.length - 1]!.id);
      await this.db.deleteFrom('warehouse_outbox').where('id', '<=', lastId).execute();
      if (rows.length < RELAY_CHUNK) return;
    }
  }
}
