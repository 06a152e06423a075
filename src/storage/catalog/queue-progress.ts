import type { CatalogDb } from './catalog.js';

/**
 * How far a catalog queue (the replica outbox) has been carried into the warehouse. Carried rows
 * are deleted later, preferably inside a writer's own transaction, so carrying costs no catalog
 * commit of its own; until then a restart carries them again, which the warehouse side makes
 * harmless (same replica versions).
 */
export class QueueProgress {
  private carried = 0;
  private pruned = 0;

  constructor(
    private readonly table: 'warehouse_outbox',
    /** Carried rows left before the queue's owner prunes them with a commit of its own. */
    private readonly pruneThreshold: number,
  ) {}

  /** The id of the last row carried into the warehouse. */
  get carriedThrough(): number {
    return this.carried;
  }

  markCarried(id: number): void {
    this.carried = id;
  }

  get wantsPruning(): boolean {
    return this.carried - this.pruned >= this.pruneThreshold;
  }

  /**
   * The last carried row not deleted yet, if any. A writer on another connection deletes the rows
   * through it in its own transaction (`deleteQueueRows`), then reports it (`markPruned`).
   */
  get prunable(): number | null {
    return this.carried > this.pruned ? this.carried : null;
  }

  markPruned(through: number): void {
    this.pruned = Math.max(this.pruned, through);
  }

  /** Deletes the carried rows, in the caller's transaction. */
  async prune(db: CatalogDb): Promise<void> {
    const through = this.prunable;
    if (through === null) return;
    await deleteQueueRows(db, this.table, through);
    this.markPruned(through);
  }
}

/** Deletes a queue's rows through id `through`. */
export async function deleteQueueRows(db: CatalogDb, table: 'warehouse_outbox', through: number): Promise<void> {
  await db.deleteFrom(table).where('id', '<=', through).execute();
}
