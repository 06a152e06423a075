import type { Catalog } from '../storage/catalog/catalog.js';
import type { OutboxRelay } from '../storage/warehouse/outbox.js';
import { CoalescingRunner } from '../util/coalescing-runner.js';
import type { Mutex } from '../util/mutex.js';
import { BatchThread } from './batch-thread.js';
import type { CaptureLog, CaptureLogEntry, HeldEvents, StoredCaptureLogEntry } from './capture-log.js';
import type { EventRows } from './event-row-buffer.js';
import type { EventWriter } from './event-writer.js';

/**
 * Events per batch: large enough that the catalog writes, the warehouse insert and its part
 * are shared by many requests, small enough to keep a batch's memory to tens of megabytes.
 */
const BATCH_EVENTS = 20_000;

/**
 * Unprocessed events at which capture waits before answering (see `admit`): two batches, so
 * captures go on while a full batch is processed. It costs memory: about 300 MB of peak RSS on
 * the 1M-event bench (1.5 GB against 1.2 GB with one batch, measured before rows left the heap).
 */
const MAX_BACKLOG_EVENTS = 40_000;

/** How long logged events may wait for a batch to fill before they are processed anyway. */
const BATCH_FILL_MS = 1000;

/**
 * Processes the capture log behind the acknowledgements, a batch at a time. The batch thread does
 * person and group processing, commits the person changes and their replica outbox in one catalog
 * transaction and records the definitions; then this thread inserts the events into the warehouse
 * while the next batch is processed.
 *
 * A log entry is removed only once its events are in the warehouse, its definitions recorded
 * and its catalog commit durable. After a crash, a power failure or a failure, entries whose
 * person changes were committed are processed again: person processing applied twice ends in
 * the same state (the same `$set` values, merges already made, persons already created with the
 * same UUIDs), and the warehouse drops the events it already has (uuid dedup).
 * Person writes from the API cannot come between: every API call awaits `flush()`, which returns
 * only when the log is processed and its entries removed.
 *
 * Every read of persons, definitions or the warehouse awaits `flush()`, so it sees every
 * acknowledged event.
 */
export class IngestionConsumer {
  private readonly runner = new CoalescingRunner(() => this.pass());
  private readonly thread: BatchThread;
  private unprocessed = 0;
  /** Logged entries not processed yet, by entry id in log order (see `handOver`). */
  private readonly handedOver = new Map<number, CaptureLogEntry>();
  private readonly admissions: (() => void)[] = [];
  private fillTimer: NodeJS.Timeout | null = null;
  /**
   * The store of the last batch committed. A pass ends without waiting for it, so the batch
   * thread starts the next pass's first batch meanwhile (waiting, it sat idle a tenth of the time).
   */
  private lastStore: Promise<void> = Promise.resolve();
  /** The last log entry committed by the batch thread; 0 after a failure, so the next pass reads the log from its start. */
  private committedThrough = 0;
  /** Stores that failed, and the last one's error: a pass fails when one fails after it began. */
  private storeFailures = 0;
  private lastStoreError: unknown = null;

  constructor(
    private readonly catalog: Catalog,
    private readonly log: CaptureLog,
    private readonly relay: OutboxRelay,
    private readonly writer: EventWriter,
    /** Every person write (this consumer and the persons API) runs under this lock, in turn. */
    private readonly personWriteLock: Mutex,
    private readonly onBackgroundError: (error: unknown) => void,
  ) {
    this.thread = new BatchThread(catalog.options);
  }

  /** After an event definition is deleted, its next sighting must create it again. */
  forgetEvent(teamId: number, name: string): void {
    this.thread.forgetEvent(teamId, name);
  }

  /** Ends the batch thread; call after the last flush. */
  close(): Promise<void> {
    return this.thread.close();
  }

  /** Resolves once everything logged before the call is processed, stored and replicated. */
  async flush(): Promise<void> {
    if (this.fillTimer) clearTimeout(this.fillTimer);
    this.fillTimer = null;
    await this.runner.run();
    // A later pass may have stored more meanwhile; stores run in order, so this includes ours.
    await this.lastStore;
    await this.relay.flush();
  }

  /** Starts a flush without waiting for it; a failure is reported, and the next flush retries it. */
  trigger(): void {
    this.flush().catch(this.onBackgroundError);
  }

  /** Takes the entries this process just logged, so their events are not read back from the log. */
  handOver(ids: readonly number[], entries: readonly CaptureLogEntry[]): void {
    for (const [index, id] of ids.entries()) {
      this.handedOver.set(id, entries[index]!);
      this.unprocessed += entries[index]!.eventCount;
    }
    // Processing waits for a batch to fill: a warehouse insert and a catalog transaction per
    // 20,000 events cost far less than per few thousand. Reads never wait: they flush.
    if (this.unprocessed >= BATCH_EVENTS) this.trigger();
    else this.fillTimer ??= setTimeout(() => this.trigger(), BATCH_FILL_MS).unref();
  }

  /** Forgets what was handed over up to `id`: a pass read those entries, from memory or not. */
  private dropHandedOver(through: number): void {
    for (const [id, entry] of this.handedOver) {
      if (id > through) break;
      this.handedOver.delete(id);
      this.unprocessed -= entry.eventCount;
    }
  }

  private heldEvents(id: number): HeldEvents | undefined {
    return this.handedOver.get(id);
  }

  /**
   * Resolves when the events this process logged and has not processed are few enough again: a
   * bound on the memory and the read latency a burst of captures can cause.
   */
  async admit(): Promise<void> {
    if (this.unprocessed <= MAX_BACKLOG_EVENTS) return;
    this.trigger();
    await new Promise<void>((resolve) => this.admissions.push(resolve));
  }

  private admitWaiting(): void {
    for (const admit of this.admissions.splice(0)) admit();
  }

  private async pass(): Promise<void> {
    try {
      await this.processLog();
    } finally {
      // Whatever happened, no capture waits on a pass that has ended.
      this.admitWaiting();
    }
  }

  private async processLog(): Promise<void> {
    await this.relay.flush();
    // Entries logged after this point wait for the next pass, so a flush never chases new traffic.
    const end = await this.log.lastId();
    // Entries the previous pass committed may still be in the log, their store under way.
    let after = this.committedThrough;
    const failuresBefore = this.storeFailures;
    try {
      for (;;) {
        const entries = await this.log.read(BATCH_EVENTS, after, end, (id) => this.heldEvents(id));
        if (entries.length === 0) break;
        after = entries[entries.length - 1]!.id;
        const rows = await this.commitBatch(entries);
        this.committedThrough = after;
        // The event writer takes one call at a time. Once a store has failed, this pass must not
        // store: removing its entries from the log would take the failed batch's along.
        await this.lastStore.catch(() => undefined);
        if (this.storeFailures !== failuresBefore) throw this.lastStoreError;
        this.lastStore = this.store(rows, after);
        // The replicas are written while the next batch is processed; a failure surfaces below.
        this.relay.flush().catch(() => undefined);
      }
    } catch (error) {
      this.committedThrough = 0;
      throw error;
    }
  }

  /** Has the batch thread process and commit a batch, with no person write from the API between. */
  private async commitBatch(entries: readonly StoredCaptureLogEntry[]): Promise<EventRows> {
    const pruneOutboxThrough = this.relay.prunable;
    const rows = await this.personWriteLock.run(() => this.thread.commit(entries, pruneOutboxThrough));
    if (pruneOutboxThrough !== null) this.relay.markPruned(pruneOutboxThrough);
    this.dropHandedOver(entries[entries.length - 1]!.id);
    if (this.unprocessed <= MAX_BACKLOG_EVENTS) this.admitWaiting();
    return rows;
  }

  /**
   * Stores a batch's events, makes its catalog commit durable, then removes the log entries it
   * came from, up to `throughId`: until then, a crash processes them again.
   */
  private store(rows: EventRows, throughId: number): Promise<void> {
    const done = this.writer
      .insertNew(rows)
      .then(() => this.catalog.syncCommits())
      .then(() => this.log.remove(throughId))
      .then(
        () => {
          // Every event logged through here is stored: the writer can trust its uuid index again.
          if (throughId === this.committedThrough) this.writer.settled();
        },
        (error: unknown) => {
          // What failed is still in the log: the next pass reads it again from the start.
          this.committedThrough = 0;
          this.storeFailures += 1;
          this.lastStoreError = error;
          throw error;
        },
      );
    // Awaited before the next store and by every flush; until then a failure must not count as unhandled.
    done.catch(() => undefined);
    return done;
  }
}
