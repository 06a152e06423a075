import type { CatalogDb } from '../catalog/catalog.js';
import { QueueProgress } from '../catalog/queue-progress.js';
import { CoalescingRunner } from '../../util/coalescing-runner.js';
import type { Warehouse } from './warehouse.js';

export type ReplicaTable = 'persons' | 'person_distinct_ids' | 'groups' | 'static_cohort_members';

export interface OutboxEntry {
  target: ReplicaTable;
  row: Record<string, unknown>;
}

/**
 * Replica rows per outbox row, as JSONEachRow lines. A capture batch changes thousands of persons:
 * stored a row each, the outbox cost as much catalog work as the persons themselves (inserted,
 * read back and deleted, each a B-tree write), where a few packed rows cost almost nothing.
 */
const LINES_PER_ROW = 1000;

/** Outbox rows the relay reads at a time: up to 50,000 replica rows. */
const RELAY_CHUNK = 50;

/** Outbox rows per insert statement: few, as each may be a thousand replica rows long. */
const ROWS_PER_INSERT = 20;

/** Records replica writes in the catalog transaction that makes the change, in order. */
export async function appendToOutbox(db: CatalogDb, entries: readonly OutboxEntry[]): Promise<void> {
  const rows: { target: ReplicaTable; row: string }[] = [];
  for (const [target, lines] of linesByTarget(entries)) {
    for (let index = 0; index < lines.length; index += LINES_PER_ROW) {
      rows.push({ target, row: lines.slice(index, index + LINES_PER_ROW).join('\n') });
    }
  }
  for (let index = 0; index < rows.length; index += ROWS_PER_INSERT) {
    await db
      .insertInto('warehouse_outbox')
      .values(rows.slice(index, index + ROWS_PER_INSERT))
      .execute();
  }
}

/** Each target's rows as JSON lines, in the order given: JSON text never holds a raw newline. */
function linesByTarget(entries: readonly OutboxEntry[]): Map<ReplicaTable, string[]> {
  const byTarget = new Map<ReplicaTable, string[]>();
  for (const entry of entries) {
    const lines = byTarget.get(entry.target);
    if (lines) lines.push(JSON.stringify(entry.row));
    else byTarget.set(entry.target, [JSON.stringify(entry.row)]);
  }
  return byTarget;
}

/**
 * Applies outbox rows to the warehouse replicas, oldest first, stamping each replica row with a
 * version from its place in the outbox: the outbox id times LINES_PER_ROW plus its line. An outbox
 * row of one line written before rows were packed gets the version its id gives, the same way,
 * above every version given before. Writers await `flush()` after committing, so the warehouse is
 * in step before they answer; start-up calls it to replay what a crash left. Applied rows are
 * removed later (`pruneApplied`); re-applying a row after a crash is harmless because its version
 * is the same. Only durable rows are applied (`syncCommits` first): a row a power failure could
 * still take back would leave the replica ahead of the catalog, under a version a later row may
 * reuse.
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
          const first = Number(row.id) * LINES_PER_ROW;
          for (const [index, line] of row.row.split('\n').entries()) lines.push(withVersion(line, first + index));
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
