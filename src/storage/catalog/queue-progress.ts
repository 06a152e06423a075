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
    return this.carried - this.pruned >= this.pruneThreshold;
  }

  /** Deletes the carried rows through `queue`, which may be bound to the caller's transaction. */
  async prune(queue: PrunableQueue): Promise<void> {
    const through = this.carried;
    if (through <= this.pruned) return;
    await queue.deleteThrough(through);
    this.pruned = through;
  }
}
