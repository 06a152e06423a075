/** At most this many warehouse insert timings wait for a reading; older ones are dropped. */
const MAX_PENDING_TIMINGS = 10_000;

/** What the ingestion consumer has done since the process started: read by the metrics and the health check. */
export class IngestionStats {
  /** Batches whose events were stored and whose log entries were removed. */
  batchesStored = 0;
  /** Events of those batches (duplicates of stored events included, which the warehouse dropped). */
  eventsStored = 0;
  /** Events set aside as dead letters. */
  deadLettered = 0;
  /** Passes that failed (each is retried). */
  failures = 0;
  /** When log entries were last removed, by this process or (as it heard) the one consuming the log; epoch ms. */
  lastProgressAt = Date.now();
  private insertSeconds: number[] = [];

  /** A warehouse insert of a batch's events took `seconds`. */
  recordInsert(seconds: number): void {
    if (this.insertSeconds.length < MAX_PENDING_TIMINGS) this.insertSeconds.push(seconds);
  }

  /** The insert timings recorded since the last call. */
  takeInsertSeconds(): number[] {
    const taken = this.insertSeconds;
    this.insertSeconds = [];
    return taken;
  }

  progressed(): void {
    this.lastProgressAt = Date.now();
  }
}
