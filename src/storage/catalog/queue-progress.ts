/** A catalog queue whose rows are deleted up to an id once carried. */
export interface PrunableQueue {
  deleteThrough(id: number): Promise<void>;
}

/**
 * How far a catalog queue (the replica outbox) has been carried into the warehouse. Carried rows
 * are deleted later, preferably inside a writer's own transaction, so carrying costs no catalog
 * commit of its own; until then a restart carries them again, which the warehouse side makes
 * harmless (same replica versions).
 */
export class QueueProgress {
  private carried = 0;
  private pruned = 0;
  /** Holds on pruning (see `holdPruning`); rows are deleted only while there are none. */
  private holds = 0;

  constructor(
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
    return this.holds === 0 && this.carried - this.pruned >= this.pruneThreshold;
  }

  /**
   * Keeps every row from being deleted until the returned release is called: a snapshot of the
   * warehouse taken meanwhile, followed by one of the catalog, finds in the catalog every row
   * the warehouse snapshot may lack.
   */
  holdPruning(): () => void {
    this.holds += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holds -= 1;
    };
  }

  /** Deletes the carried rows through `queue`, which may be bound to the caller's transaction. */
  async prune(queue: PrunableQueue): Promise<void> {
    const through = this.carried;
    if (through <= this.pruned || this.holds > 0) return;
    await queue.deleteThrough(through);
    this.pruned = through;
  }
}
