import type { CatalogDb } from '../catalog/catalog.js';
import { QueueProgress } from '../catalog/queue-progress.js';
import { CoalescingRunner } from '../../util/coalescing-runner.js';
import type { Warehouse } from './warehouse.js';

export type ReplicaTable = 'persons' | 'person_distinct_ids' | 'groups' | 'static_cohort_members';

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
 * as the version. Writers await `flush()` after committing, so the warehouse is in step before
 * they answer; start-up calls it to replay what a crash left. Applied rows are removed later
 * (`pruneApplied`); re-applying a row after a crash is harmless because its version is the same.
 * Only durable rows are applied (`syncCommits` first): a row a power failure could still take
 * back would leave the replica ahead of the catalog, under a version a later row may reuse.
 */
export class OutboxRelay {
  private readonly runner: CoalescingRunner;
  private readonly progress = new QueueProgress('warehouse_outbox', 5000);

  constructor(
    private readonly db: CatalogDb,
    private readonly warehouse: Warehouse,
    private readonly syncCommits: () => Promise<void>,
  ) {
    this.runner = new CoalescingRunner(() => this.drain());
  }

  flush(): Promise<void> {
    return this.runner.run();
  }

  /** Deletes the rows already applied, in the caller's transaction. */
  pruneApplied(db: CatalogDb): Promise<void> {
    return this.progress.prune(db);
  }

  private async drain(): Promise<void> {
    await this.syncCommits();
    for (;;) {
      const rows = await this.db
        .selectFrom('warehouse_outbox')
        .selectAll()
        .where('id', '>', this.progress.carriedThrough)
        .orderBy('id')
        .limit(RELAY_CHUNK)
        .execute();
      if (rows.length > 0) {
        const byTarget = new Map<string, string[]>();
        for (const row of rows) {
          const lines = byTarget.get(row.target) ?? [];
          lines.push(withVersion(row.row, Number(row.id)));
          byTarget.set(row.target, lines);
        }
        for (const [target, lines] of byTarget) await this.warehouse.insertJsonEachRow(target, lines.join('\n'));
        this.progress.markCarried(Number(rows[rows.length - 1]!.id));
      }
      if (this.progress.wantsPruning) await this.progress.prune(this.db);
      if (rows.length < RELAY_CHUNK) return;
    }
  }
}

/** A stored replica row (a JSON object with at least one field) with its version added, as a JSONEachRow line. */
function withVersion(row: string, version: number): string {
  return `{"version":${version},${row.slice(1)}`;
}
