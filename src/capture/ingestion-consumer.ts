import type { DefinitionRecorder } from '../definitions/definition-recorder.js';
import { PersonRepository } from '../persons/person-repository.js';
import type { Catalog, CatalogDb } from '../storage/catalog/catalog.js';
import { PauseBetweenQueries } from '../storage/catalog/pause-between-queries.js';
import type { OutboxRelay } from '../storage/warehouse/outbox.js';
import { CoalescingRunner } from '../util/coalescing-runner.js';
import type { Mutex } from '../util/mutex.js';
import { TimeSlices } from '../util/yield.js';
import type { CaptureLog, CaptureLogEntry, HeldEvents, StoredCaptureLogEntry } from './capture-log.js';
import type { EventWriter } from './event-writer.js';
import type { GroupTypeRegistry } from './group-types.js';
import { IngestionBatch } from './ingestion-batch.js';
import { PersonCache } from './person-cache.js';

/**
 * Events per batch: large enough that the catalog writes, the warehouse insert and its part
 * are shared by many requests, small enough to keep a batch's memory to tens of megabytes.
 */
const BATCH_EVENTS = 20_000;

/**
 * Unprocessed events at which capture waits before answering (see `admit`): three batches, so
 * captures go on while a full batch is processed and the consumer waits on a store. It costs
 * memory: on the 1M-event bench, two batches had 300 MB more peak RSS than one (measured before
 * rows left the heap), and three about 50 MB more than two, for about 4% more events/s.
 */
const MAX_BACKLOG_EVENTS = 60_000;

/** How long logged events may wait for a batch to fill before they are processed anyway. */
const BATCH_FILL_MS = 1000;

/**
 * The longest the consumer holds the event loop at a time. Captures are answered between
 * slices; held for a whole batch's preload or writes (a third of a second), the senders and the
 * decoding thread would sit idle meanwhile.
 */
const SLICE_MS = 2;

/**
 * Processes the capture log behind the acknowledgements, a batch at a time: person and group
 * processing, then the person changes and their replica outbox in one catalog transaction, then
 * the events into the warehouse and the definitions into the catalog while the next batch is
 * processed.
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
  private readonly persons = new PersonRepository();
  private readonly personCache = new PersonCache();
  /** The consumer's last turn of the person write lock: another turn since means persons changed. */
  private lastPersonWriteTurn = 0;
  private unprocessed = 0;
  /** Logged entries not processed yet, by entry id in log order (see `handOver`). */
  private readonly handedOver = new Map<number, CaptureLogEntry>();
  private readonly admissions: (() => void)[] = [];
  private fillTimer: NodeJS.Timeout | null = null;
  /**
   * The store of the last batch committed, and of the one before. Stores run one after another;
   * a batch commits once the store before last is done, so the last one runs meanwhile, and a
   * pass ends without waiting for either: waiting, the consumer sat idle for a tenth of each pass.
   */
  private lastStore: Promise<void> = Promise.resolve();
  private storeBeforeLast: Promise<void> = Promise.resolve();
  /** The last log entry committed; 0 after a failure, so the next pass reads the log from its start. */
  private committedThrough = 0;
  /** Stores that failed, and the last one's error: a pass fails when a store fails after it began. */
  private storeFailures = 0;
  private lastStoreError: unknown = null;
  private readonly slices = new TimeSlices(SLICE_MS);
  /** The catalog as the consumer uses it: pausing between statements at the end of a slice. */
  private readonly db: CatalogDb;

  constructor(
    private readonly catalog: Catalog,
    private readonly log: CaptureLog,
    private readonly relay: OutboxRelay,
    private readonly writer: EventWriter,
    private readonly groupTypes: GroupTypeRegistry,
    private readonly definitions: DefinitionRecorder,
    /** Every person write (this consumer and the persons API) runs under this lock, in turn. */
    private readonly personWriteLock: Mutex,
    private readonly onBackgroundError: (error: unknown) => void,
  ) {
    this.db = catalog.db.withPlugin(new PauseBetweenQueries(this.slices));
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
    // After a failure, every store still running fails too (see `store`): once they have, the
    // pass reads the log from its start, and a failure counted from here on is a new one.
    if (this.committedThrough === 0) await this.lastStore.catch(() => undefined);
    // Entries logged after this point wait for the next pass, so a flush never chases new traffic.
    const end = await this.log.lastId();
    // Entries the previous pass committed may still be in the log, their store under way.
    let after = this.committedThrough;
    const failuresBefore = this.storeFailures;
    let committed = false;
    try {
      for (;;) {
        const entries = await this.log.read(BATCH_EVENTS, after, end, (id) => this.heldEvents(id));
        if (entries.length === 0) break;
        committed = true;
        after = entries[entries.length - 1]!.id;
        const batch = await this.commitBatch(entries, failuresBefore);
        this.committedThrough = after;
        this.storeBeforeLast = this.lastStore;
        this.lastStore = this.store(batch, after, failuresBefore);
        // The replicas are written while the next batch is processed; `flush` waits for them.
        this.relay.flush().catch(() => undefined);
      }
    } catch (error) {
      this.committedThrough = 0;
      throw error;
    }
    // Nothing was left to process (at start-up with an empty log, say): once the last store is
    // in, every logged event is stored. A store settles the writer itself otherwise.
    if (!committed) this.lastStore.then(() => this.settleWriter(after), () => undefined);
  }

  /** Tells the writer its uuid index is complete if nothing was committed after `throughId`. */
  private settleWriter(throughId: number): void {
    if (throughId === this.committedThrough) this.writer.settled();
  }

  /**
   * Processes a batch and commits its catalog changes once the batch before the last is stored,
   * which bounds the batches held in memory for their stores. A store known to have failed since
   * the pass began fails the batch; one that fails later fails the stores after it (see `store`).
   */
  private async commitBatch(entries: readonly StoredCaptureLogEntry[], failuresBefore: number): Promise<IngestionBatch> {
    const batch = new IngestionBatch({
      db: this.db,
      groupTypes: this.groupTypes,
      persons: this.persons,
      personCache: this.personCache,
      slices: this.slices,
      definitions: this.definitions,
    });
    await this.personWriteLock.run(async () => {
      const turn = this.personWriteLock.turns;
      if (turn !== this.lastPersonWriteTurn + 1) this.personCache.clear();
      this.lastPersonWriteTurn = turn;
      try {
        await batch.process(entries);
        await this.storeBeforeLast.catch(() => undefined);
        if (this.storeFailures !== failuresBefore) throw this.lastStoreError;
        // Durable before the entries are removed from the log (`store`), not on commit.
        await this.catalog.deferredSyncTransaction(this.db, async (trx) => {
          await batch.write(trx);
          await this.relay.pruneApplied(trx);
        });
        batch.rememberCommitted();
      } catch (error) {
        // Whether the catalog holds the batch's changes is not known for every failure.
        this.personCache.clear();
        this.groupTypes.forgetAll();
        throw error;
      }
    });
    this.dropHandedOver(entries[entries.length - 1]!.id);
    if (this.unprocessed <= MAX_BACKLOG_EVENTS) this.admitWaiting();
    return batch;
  }

  /**
   * Once the store before it is done, stores a batch's events and definitions, makes its catalog
   * commit durable, then removes the log entries it came from, up to `throughId`: until then, a
   * crash processes them again. After a store failure since its pass began (`failuresBefore`
   * failures before), it fails without storing anything: removing this batch's entries from the
   * log would take the failed batch's along. Its entries stay, and the next pass reads them again.
   */
  private store(batch: IngestionBatch, throughId: number, failuresBefore: number): Promise<void> {
    const done = this.lastStore
      .catch(() => undefined)
      .then(() => {
        if (this.storeFailures !== failuresBefore) throw this.lastStoreError;
        // The event writer takes one call at a time: the chain of stores sees to it.
        return Promise.allSettled([this.writer.insertNew(batch.rows), this.recordDefinitions(batch)]);
      })
      .then(throwFirstFailure)
      .then(() => this.catalog.syncCommits())
      .then(() => this.log.remove(throughId))
      .then(
        () => this.settleWriter(throughId),
        (error: unknown) => {
          // What failed is still in the log: the next pass reads it again from the start.
          this.committedThrough = 0;
          this.storeFailures += 1;
          this.lastStoreError = error;
          throw error;
        },
      );
    // Awaited before the next commit and by every flush; until then a failure must not count as unhandled.
    done.catch(() => undefined);
    return done;
  }

  private async recordDefinitions(batch: IngestionBatch): Promise<void> {
    for (const request of batch.recordable) await this.definitions.record(request.teamId, request.events, request.receivedAt);
  }
}

function throwFirstFailure(results: PromiseSettledResult<void>[]): void {
  for (const result of results) if (result.status === 'rejected') throw result.reason;
}
