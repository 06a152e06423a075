import type { Logger } from '../../logger.js';
import type { CatalogTransaction } from '../catalog/catalog.js';
import { QueueProgress } from '../catalog/queue-progress.js';
import { CoalescingRunner } from '../../util/coalescing-runner.js';
import type { OutboxRepository } from './outbox-repository.js';
import { rowEnds, RowBinaryWriter, writeValue, type WarehouseColumn } from './row-binary.js';
import type { Warehouse } from './warehouse.js';

/** The replica rows of each warehouse table the outbox writes; times are epoch microseconds. */
export interface ReplicaRows {
  persons: {
    id: string;
    team_id: number;
    person_id: number;
    properties: string;
    is_identified: number;
    created_at: number;
    is_deleted: number;
  };
  person_distinct_ids: { team_id: number; distinct_id: string; person_id: string; is_deleted: number };
  groups: { team_id: number; group_type_index: number; group_key: string; group_properties: string; created_at: number };
  static_cohort_members: { team_id: number; cohort_id: number; person_id: string; is_deleted: number };
}

export type ReplicaTable = keyof ReplicaRows;

export type OutboxEntry = { [T in ReplicaTable]: { target: T; row: ReplicaRows[T] } }[ReplicaTable];

type ReplicaColumns = { [T in ReplicaTable]: readonly (WarehouseColumn & { name: keyof ReplicaRows[T] & string })[] };

/** The columns of each target in the order they are encoded; the relay adds `version` last. */
const REPLICA_COLUMNS: ReplicaColumns = {
  persons: [
    { name: 'id', type: 'UUID' },
    { name: 'team_id', type: 'Int64' },
    { name: 'person_id', type: 'Int64' },
    { name: 'properties', type: 'String' },
    { name: 'is_identified', type: 'UInt8' },
    { name: 'created_at', type: "DateTime64(6, 'UTC')" },
    { name: 'is_deleted', type: 'UInt8' },
  ],
  person_distinct_ids: [
    { name: 'team_id', type: 'Int64' },
    { name: 'distinct_id', type: 'String' },
    { name: 'person_id', type: 'UUID' },
    { name: 'is_deleted', type: 'UInt8' },
  ],
  groups: [
    { name: 'team_id', type: 'Int64' },
    { name: 'group_type_index', type: 'UInt8' },
    { name: 'group_key', type: 'String' },
    { name: 'group_properties', type: 'String' },
    { name: 'created_at', type: "DateTime64(6, 'UTC')" },
  ],
  static_cohort_members: [
    { name: 'team_id', type: 'Int64' },
    { name: 'cohort_id', type: 'Int64' },
    { name: 'person_id', type: 'UUID' },
    { name: 'is_deleted', type: 'UInt8' },
  ],
};

const VERSION_COLUMN: WarehouseColumn = { name: 'version', type: 'UInt64' };
const VERSION_BYTES = 8;

/**
 * Replica rows per outbox row, encoded in RowBinary. A capture batch changes thousands of
 * persons: stored a row each, the outbox cost as much catalog work as the persons themselves
 * (inserted, read back and deleted, each a B-tree write), where a few packed rows cost almost
 * nothing.
 */
const ROWS_PER_OUTBOX_ROW = 1000;

/** Outbox rows the relay reads at a time: up to 50,000 replica rows. */
const RELAY_CHUNK = 50;

/** An outbox row: replica rows of one target, packed in RowBinary. */
export interface PackedOutboxRow {
  target: ReplicaTable;
  encoded: Buffer;
}

/** Replica writes as outbox rows, in order: up to ROWS_PER_OUTBOX_ROW replica rows of one target per row. */
export function packOutboxEntries(entries: readonly OutboxEntry[]): PackedOutboxRow[] {
  const rows: PackedOutboxRow[] = [];
  // One writer for every outbox row, each copied out at its size: a writer apiece would allocate
  // its first buffer for each.
  const writer = new RowBinaryWriter();
  for (const [target, targetRows] of rowsByTarget(entries)) {
    const columns = REPLICA_COLUMNS[target];
    for (let start = 0; start < targetRows.length; start += ROWS_PER_OUTBOX_ROW) {
      writer.clear();
      for (const row of targetRows.slice(start, start + ROWS_PER_OUTBOX_ROW)) {
        for (const column of columns) writeValue(writer, column, row[column.name as keyof typeof row]);
      }
      rows.push({ target, encoded: Buffer.from(writer.bytes()) });
    }
  }
  return rows;
}

/** Each target's rows, in the order given. */
function rowsByTarget(entries: readonly OutboxEntry[]): Map<ReplicaTable, OutboxEntry['row'][]> {
  const byTarget = new Map<ReplicaTable, OutboxEntry['row'][]>();
  for (const entry of entries) {
    const rows = byTarget.get(entry.target);
    if (rows) rows.push(entry.row);
    else byTarget.set(entry.target, [entry.row]);
  }
  return byTarget;
}

/**
 * Applies outbox rows to the warehouse replicas, oldest first, stamping each replica row with a
 * version from its place in the outbox: the outbox id times ROWS_PER_OUTBOX_ROW plus its place in
 * the row. Writers await `flush()` after committing, so the warehouse is in step before they
 * answer; start-up calls it to replay what a crash left. Applied rows are removed later
 * (`pruneApplied`); re-applying a row after a crash is harmless because its version is the same.
 * Only durable rows are applied (`syncCommits` first): a row a power failure could still take
 * back would leave the replica ahead of the catalog, under a version a later row may reuse.
 */
export class OutboxRelay {
  private readonly runner: CoalescingRunner;
  private readonly progress = new QueueProgress(5000);
  /** Calls of `flush()`, each after a commit that may have appended rows. */
  private flushes = 0;
  /** `flushes` when the last drain to find the outbox empty began; -1 before the first drain. */
  private drainedFlushes = -1;

  /**
   * `shared`: other processes write the outbox too, so a read cannot know from this process's
   * flushes alone whether rows wait; it drains every time.
   */
  constructor(
    private readonly outbox: OutboxRepository,
    private readonly warehouse: Warehouse,
    private readonly syncCommits: () => Promise<void>,
    private readonly shared = false,
    private readonly logger: Logger | null = null,
  ) {
    this.runner = new CoalescingRunner(() => this.drain());
  }

  /** Applies every committed row; writers call it after each commit that appended rows. */
  flush(): Promise<void> {
    this.flushes += 1;
    return this.runner.run();
  }

  /**
   * What a read waits for: every row writers have committed, applied. When only this process's
   * writers append rows, each calling `flush()` after its commit, while no flush came since a
   * drain began and found the outbox empty, there is nothing to read (and no catalog query to
   * make); the first call drains whatever a crash left. Rows applied by several processes'
   * relays are applied twice at worst, under the same versions.
   */
  catchUp(): Promise<void> {
    return !this.shared && this.flushes === this.drainedFlushes ? Promise.resolve() : this.runner.run();
  }

  /** Keeps applied rows in the outbox until the returned release is called (see `QueueProgress.holdPruning`). */
  holdPruning(): () => void {
    return this.progress.holdPruning();
  }

  /** Deletes the rows already applied: in the caller's transaction when given one. */
  pruneApplied(trx?: CatalogTransaction): Promise<void> {
    return this.progress.prune(trx ? this.outbox.withTransaction(trx) : this.outbox);
  }

  private async drain(): Promise<void> {
    const flushes = this.flushes;
    const started = performance.now();
    let applied = 0;
    await this.syncCommits();
    for (;;) {
      const rows = await this.outbox.after(this.progress.carriedThrough, RELAY_CHUNK);
      if (rows.length > 0) {
        const encoded = new Map<ReplicaTable, EncodedOutboxRow[]>();
        for (const row of rows) {
          // Catalog migration 015 refuses a catalog still holding rows of JSON lines, which builds before RowBinary wrote.
          if (row.encoded === null) throw new Error(`warehouse_outbox row ${row.id} holds no RowBinary rows`);
          const target = row.target as ReplicaTable;
          const targetRows = encoded.get(target) ?? [];
          targetRows.push({ rows: row.encoded, firstVersion: Number(row.id) * ROWS_PER_OUTBOX_ROW });
          encoded.set(target, targetRows);
        }
        for (const [target, targetRows] of encoded) {
          const columns = REPLICA_COLUMNS[target];
          await this.warehouse.insertRowBinary(target, [...columns, VERSION_COLUMN], [withVersions(targetRows, columns)]);
        }
        this.progress.markCarried(Number(rows[rows.length - 1]!.id));
        applied += rows.length;
      }
      if (this.progress.wantsPruning) await this.progress.prune(this.outbox);
      if (rows.length < RELAY_CHUNK) {
        this.drainedFlushes = flushes;
        if (applied > 0)
          this.logger?.debug({ outboxRows: applied, ms: Math.round(performance.now() - started) }, 'replicas: outbox rows applied to the warehouse');
        return;
      }
    }
  }
}

/** Replica rows of one outbox row, in RowBinary, and the version of the first. */
interface EncodedOutboxRow {
  rows: Uint8Array;
  firstVersion: number;
}

/** The replica rows, each followed by its version (`firstVersion` for an outbox row's first, counting up), in one buffer of their size. */
function withVersions(outboxRows: readonly EncodedOutboxRow[], columns: readonly WarehouseColumn[]): Buffer {
  const ends = outboxRows.map(({ rows }) => rowEnds(rows, columns));
  const size = outboxRows.reduce((total, { rows }, index) => total + rows.length + VERSION_BYTES * ends[index]!.length, 0);
  const writer = new RowBinaryWriter(size);
  for (const [index, { rows, firstVersion }] of outboxRows.entries()) {
    let start = 0;
    for (const [row, end] of ends[index]!.entries()) {
      writer.raw(rows.subarray(start, end));
      writer.int64(firstVersion + row);
      start = end;
    }
  }
  return writer.bytes();
}
