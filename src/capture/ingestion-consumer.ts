import { sql } from 'kysely';
import type { DefinitionRecorder } from '../definitions/definition-recorder.js';
import { GroupRepository } from '../groups/group-repository.js';
import { PersonRepository } from '../persons/person-repository.js';
import type { Logger } from '../logger.js';
import { PersonWriteEpoch } from '../persons/person-write-epoch.js';
import type { Catalog, CatalogDb } from '../storage/catalog/catalog.js';
import { PauseBetweenQueries } from '../storage/catalog/pause-between-queries.js';
import { CoordinatedWork, CoordinationChannel, type ProcessCoordination } from '../storage/catalog/process-coordination.js';
import type { OutboxRelay } from '../storage/warehouse/outbox.js';
import { OutboxRepository } from '../storage/warehouse/outbox-repository.js';
import { CoalescingRunner } from '../util/coalescing-runner.js';
import { Mutex } from '../util/mutex.js';
import { TimeSlices } from '../util/yield.js';
import { loggedEventsBytes, loggedEventsText, type CaptureLog, type CaptureLogEntry, type HeldEvents, type StoredCaptureLogEntry } from './capture-log.js';
import { DeadLetterRepository } from './dead-letter-repository.js';
import type { EventWriter } from './event-writer.js';
import type { GroupTypeRegistry } from './group-type-registry.js';
import { IngestionBatch } from './ingestion-batch.js';
import { IngestionStats } from './ingestion-stats.js';
import { ingestionWarning } from './ingestion-warning.js';
import type { IngestionWarningRepository } from './ingestion-warning-repository.js';
import { serializeLoggedEvents } from './logged-events-json.js';
import type { LoggedEvent } from './normalize-event.js';
import { PersonCache } from './person-cache.js';
import { isStoreUnavailable } from './store-unavailable.js';

/**
 * Events per batch: large enough that the catalog writes, the warehouse insert and its part
 * are shared by many requests, small enough to keep a batch's memory to tens of megabytes.
 */
const BATCH_EVENTS = 20_000;

/**
 * Event-row bytes at which a batch stops taking entries, the rest waiting for the next: every
 * row carries its person's properties, so a few large persons with many events would otherwise
 * make a batch of gigabytes. Ordinary batches of 20,000 events take a fraction of it.
 */
const BATCH_ROW_BYTES = 64 * 1024 * 1024;

/**
 * Unprocessed events at which capture waits before answering (see `admit`): two batches, so
 * captures go on while a full batch is processed and the consumer waits on a store. Each further
 * batch costs memory: loading 1M events, a third batch added 30–50 MB of peak RSS for no CPU per
 * event or events/s that alternating loads could tell apart.
 */
const MAX_BACKLOG_EVENTS = 40_000;

/** How long logged events may wait for a batch to fill before they are processed anyway. */
const BATCH_FILL_MS = 1000;

/**
 * The longest the consumer holds the event loop at a time. Captures are answered between
 * slices; held for a whole batch's preload or writes (a third of a second), the senders and the
 * decoding thread would sit idle meanwhile.
 */
const SLICE_MS = 2;

/** The first wait before processing is tried again after a failure; it doubles with each one after. */
const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 30_000;

/** Times a read tries processing again after events failed it, so it waits for them to be set aside. */
const READ_ISOLATION_ROUNDS = 3;

/**
 * How long a read in a process that does not consume the log waits between looks at it, when no
 * notification of progress comes sooner.
 */
const FOLLOWER_POLL_MS = 50;

/**
 * How long such a read waits for the consumer without seeing it remove an entry before it serves
 * what is processed: the consumer fails or no process consumes, as a read on the consumer's own
 * process serves what is processed while processing fails.
 */
const FOLLOWER_STALL_MS = 5000;

/**
 * How often the consuming process looks at the log when no other process told it of captures:
 * a notification lost with a broken connection delays processing by this at most.
 */
const LEADER_POLL_MS = 2000;

/** How often the consumer sums up what it stored, when it stored anything. */
const REPORT_INTERVAL_MS = 60_000;

/** Tries of a batch whose persons another process wrote meanwhile, before the pass fails and retries later. */
const MAX_PERSON_WRITE_RETRIES = 5;

/** A batch's persons were written by someone else between its reads and its commit. */
class PersonsChanged extends Error {
  constructor() {
    super('persons were written by another process while a batch was processed');
  }
}

/** An event of a log entry, as the consumer sets aside what fails (see `isolate`). */
interface LoggedEventOf {
  entry: StoredCaptureLogEntry;
  /** The event's JSON as logged; the entry's whole text when it could not be read as events. */
  text: string;
  /** What the dead letter names, when the text could be read. */
  event: Pick<LoggedEvent, 'uuid' | 'event' | 'distinctId'> | null;
}

/** What the consumer works with. */
export interface IngestionConsumerOptions {
  catalog: Catalog;
  log: CaptureLog;
  relay: OutboxRelay;
  writer: EventWriter;
  /** Resolves when the warehouse answers a query: asked before an event that fails alone is set aside. */
  warehouseAnswers: () => Promise<void>;
  groupTypes: GroupTypeRegistry;
  definitions: DefinitionRecorder;
  warnings: IngestionWarningRepository;
  /** Every person write of this process (this consumer and the persons API) runs under this lock, in turn. */
  personWriteLock: Mutex;
  /** Which process consumes the log, when several share it. */
  coordination: ProcessCoordination;
  /** Told of each failure to process; the consumer retries by itself. */
  onFailure: (error: unknown) => void;
  /** Where the consumer says what it did: each batch at debug, a summary a minute at info. */
  logger: Logger;
}

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
 * Person writes from the API come between only while processing fails: every API call awaits
 * `catchUp()`, which otherwise returns only when the log is processed and its entries removed.
 *
 * Every read of persons, definitions or the warehouse awaits `catchUp()`, so it sees every
 * acknowledged event that can be processed.
 *
 * Nothing an event holds stops the consumer. When processing fails because a store is
 * unavailable, it is tried again, later and later; when it fails for any other reason, the next
 * pass narrows the failure down to the events that cause it (`isolate`), sets those aside in the
 * catalog's dead letters with an ingestion warning, and processes every other event.
 */
export class IngestionConsumer {
  /** What the consumer has done, for the metrics and the health check. */
  readonly stats = new IngestionStats();
  private readonly runner = new CoalescingRunner(() => this.pass());
  private readonly personCache = new PersonCache();
  /** Person writes counted when the cache was last known to hold what the catalog holds. */
  private knownPersonEpoch = -1;
  private readonly personEpoch: PersonWriteEpoch;
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
  private readonly groups: GroupRepository;
  private readonly persons: PersonRepository;
  private readonly outbox: OutboxRepository;
  private readonly deadLetters: DeadLetterRepository;
  /** Failures since processing last succeeded; while there are any, captures do not wait for it. */
  private consecutiveFailures = 0;
  private lastFailure: unknown = null;
  /** After a failure no store explains, the next pass processes its first batch with `isolate`. */
  private isolateNext = false;
  private retryTimer: NodeJS.Timeout | null = null;
  /** When the retry after a store was unavailable is due (epoch ms); reads do not try before. */
  private retryAt = 0;
  private closed = false;
  /** Whether this process consumes the log; other processes' reads wait for the one that does. */
  private leading = false;
  /** Events other processes told of logging since this process's last pass began. */
  private othersLogged = 0;
  private leaderPoll: NodeJS.Timeout | null = null;
  private readonly reportTimer: NodeJS.Timeout;
  /** The counts of the last summary. */
  private reported = { batches: 0, events: 0, deadLettered: 0, failures: 0 };
  /** Reads waiting for the consumer in another process to remove entries. */
  private readonly progressWaiters = new Set<() => void>();
  /** Passes take it, and so does `whilePaused`: none runs while a caller works on paused stores. */
  private readonly processing = new Mutex();
  /** Callers working while the consumer is paused (see `whilePaused`). */
  private paused = 0;

  constructor(private readonly using: IngestionConsumerOptions) {
    this.db = using.catalog.db.withPlugin(new PauseBetweenQueries(this.slices));
    this.groups = new GroupRepository(this.db, using.catalog.dialect);
    this.persons = new PersonRepository(this.db);
    this.outbox = new OutboxRepository(this.db, using.catalog.dialect);
    this.deadLetters = new DeadLetterRepository(using.catalog.db);
    this.personEpoch = new PersonWriteEpoch(using.catalog.db);
    // Stores of its own are this process's to consume from the first; shared ones once it leads.
    this.leading = !using.coordination.shared;
    this.reportTimer = setInterval(() => this.report(), REPORT_INTERVAL_MS).unref();
  }

  /** Logs what was stored since the last summary, if anything was. */
  private report(): void {
    const { batchesStored: batches, eventsStored: events, deadLettered, failures } = this.stats;
    const since = this.reported;
    if (events === since.events && deadLettered === since.deadLettered && failures === since.failures) return;
    this.reported = { batches, events, deadLettered, failures };
    this.using.logger.info(
      {
        batches: batches - since.batches,
        events: events - since.events,
        deadLettered: deadLettered - since.deadLettered,
        failures: failures - since.failures,
        seconds: REPORT_INTERVAL_MS / 1000,
      },
      `ingestion: ${events - since.events} events stored in ${batches - since.batches} batches over the last minute`,
    );
  }

  /**
   * Starts consuming the log once this process leads its consumption: at once when the stores
   * are its own, as soon as no other process leads when several share them. Resolves after the
   * first try, so start-up knows whether it consumes.
   */
  async start(): Promise<void> {
    const { coordination } = this.using;
    if (coordination.shared) {
      coordination.listen(CoordinationChannel.Captured, (payload) => this.othersCaptured(payload));
      coordination.listen(CoordinationChannel.FlushWanted, () => this.trigger());
      coordination.listen(CoordinationChannel.Processed, () => this.progressMade());
    }
    await coordination.campaign(CoordinatedWork.Ingestion, (leading) => this.leadershipChanged(leading));
  }

  /** Whether this process consumes the log. */
  get consuming(): boolean {
    return this.leading;
  }

  private leadershipChanged(leading: boolean): void {
    if (this.using.coordination.shared) {
      this.using.logger.info(leading ? 'ingestion: this process now consumes the capture log' : 'ingestion: this process no longer consumes the capture log');
    }
    this.leading = leading;
    // What another process did meanwhile is not in memory here: the log is read from its start.
    this.committedThrough = 0;
    this.knownPersonEpoch = -1;
    this.personCache.clear();
    this.using.groupTypes.forgetAll();
    if (this.leaderPoll) clearInterval(this.leaderPoll);
    this.leaderPoll = null;
    if (!leading) {
      this.dropHandedOver(Number.POSITIVE_INFINITY);
      this.admitWaiting();
      return;
    }
    if (this.using.coordination.shared) this.leaderPoll = setInterval(() => this.trigger(), LEADER_POLL_MS).unref();
    this.trigger();
  }

  /** Another process logged events: processed once a batch's worth waits, or within the fill time. */
  private othersCaptured(payload: string): void {
    if (!this.leading || this.closed) return;
    for (const count of payload.split(',')) this.othersLogged += Number(count) || 0;
    if (this.othersLogged >= BATCH_EVENTS) this.trigger();
    else this.fillTimer ??= setTimeout(() => this.trigger(), BATCH_FILL_MS).unref();
  }

  private progressMade(): void {
    this.stats.progressed();
    for (const wake of this.progressWaiters) wake();
    this.progressWaiters.clear();
  }

  /**
   * What a read waits for in a process that does not consume the log: the entries logged before
   * it removed by the process that does (their events stored, their catalog changes committed),
   * then the replica writes applied. The consumer is asked to start at once; a consumer that
   * stops removing entries for `FOLLOWER_STALL_MS` is not waited for longer.
   */
  private async awaitConsumer(): Promise<void> {
    const { log, coordination } = this.using;
    const through = await log.lastId();
    let oldest = await log.oldestId();
    let progressAt = Date.now();
    if (oldest !== 0 && oldest <= through) coordination.signal(CoordinationChannel.FlushWanted);
    while (oldest !== 0 && oldest <= through && !this.leading && !this.closed && Date.now() - progressAt < FOLLOWER_STALL_MS) {
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          this.progressWaiters.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, FOLLOWER_POLL_MS);
        this.progressWaiters.add(wake);
      });
      const now = await log.oldestId();
      if (now !== oldest) progressAt = Date.now();
      oldest = now;
    }
    if (this.leading) return this.catchUp();
    await this.using.relay.catchUp().catch(() => undefined);
  }

  /** Resolves once everything logged before the call is processed, stored and replicated; rejects when processing failed. */
  async flush(): Promise<void> {
    if (this.fillTimer) clearTimeout(this.fillTimer);
    this.fillTimer = null;
    await this.runner.run();
    // A later pass may have stored more meanwhile; stores run in order, so this includes ours.
    await this.lastStore;
    try {
      await this.using.relay.catchUp();
    } catch (error) {
      this.noteFailure(error);
      throw error;
    }
  }

  /**
   * What a read waits for: everything acknowledged processed, or as much as can be. It never
   * fails: while processing fails, the read serves what was processed. Events that fail it are
   * set aside by the passes it waits for; while a store is unavailable, it tries once per retry.
   */
  async catchUp(): Promise<void> {
    if (this.closed) return;
    if (!this.leading) return this.awaitConsumer();
    if (this.consecutiveFailures > 0 && Date.now() < this.retryAt) return;
    for (let round = 0; round < READ_ISOLATION_ROUNDS; round++) {
      try {
        await this.flush();
        return;
      } catch {
        if (!this.isolateNext || this.closed) return;
      }
    }
  }

  /** Starts a flush without waiting for it; a failure is reported and retried by the consumer. */
  trigger(): void {
    if (!this.closed && this.leading) this.flush().catch(() => undefined);
  }

  /**
   * Stops starting passes and lets waiting captures go on; then waits up to `withinMs` for a
   * last flush. False when that did not finish in time (the pass may still run: the log keeps
   * what it did not remove, and the next start processes it).
   */
  async close(withinMs: number): Promise<boolean> {
    if (this.fillTimer) clearTimeout(this.fillTimer);
    if (this.retryTimer) clearTimeout(this.retryTimer);
    if (this.leaderPoll) clearInterval(this.leaderPoll);
    clearInterval(this.reportTimer);
    this.closed = true;
    this.admitWaiting();
    this.progressMade();
    if (!this.leading) return true;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), withinMs)));
    const finished = this.flush().then(
      () => true,
      () => true,
    );
    try {
      return await Promise.race([finished, timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Runs `work` once the pass under way and the stores it started are done, and starts no pass
   * until it ends: meanwhile the catalog and the warehouse hold exactly what the log's removed
   * entries held, and the log keeps every entry acknowledged and not processed (captures go on
   * being logged). Reads wait for the passes that come after (`catchUp`), so they still see
   * every acknowledged write; captures do not wait. `work` must not wait for ingestion itself.
   */
  whilePaused<T>(work: () => Promise<T>): Promise<T> {
    return this.processing.run(async () => {
      this.paused += 1;
      this.admitWaiting();
      try {
        // A store that failed left its entries in the log: they are processed again, as after a crash.
        await this.lastStore.catch(() => undefined);
        return await work();
      } finally {
        this.paused -= 1;
        // What was logged meanwhile, handed over or not.
        this.trigger();
      }
    });
  }

  /** Takes the entries this process just logged, so their events are not read back from the log. */
  handOver(ids: readonly number[], entries: readonly CaptureLogEntry[]): void {
    if (!this.leading) {
      const events = entries.reduce((total, entry) => total + entry.eventCount, 0);
      this.using.coordination.signal(CoordinationChannel.Captured, String(events));
      return;
    }
    for (const [index, id] of ids.entries()) {
      // While processing fails or is paused, what does not fit the backlog is read back from the
      // log later: memory stays bounded however long a store is away.
      if ((this.consecutiveFailures > 0 || this.paused > 0) && this.unprocessed >= MAX_BACKLOG_EVENTS) break;
      this.handedOver.set(id, entries[index]!);
      this.unprocessed += entries[index]!.eventCount;
    }
    if (this.closed || this.consecutiveFailures > 0) return;
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
   * bound on the memory and the read latency a burst of captures can cause. While processing
   * fails or is paused, captures do not wait for it: their events are durable in the log.
   */
  async admit(): Promise<void> {
    if (!this.leading || this.unprocessed <= MAX_BACKLOG_EVENTS || this.consecutiveFailures > 0 || this.paused > 0 || this.closed) return;
    this.trigger();
    await new Promise<void>((resolve) => this.admissions.push(resolve));
  }

  private admitWaiting(): void {
    for (const admit of this.admissions.splice(0)) admit();
  }

  private async pass(): Promise<void> {
    try {
      await this.processing.run(() => this.processLog());
    } catch (error) {
      this.noteFailure(error);
      throw error;
    } finally {
      // Whatever happened, no capture waits on a pass that has ended.
      this.admitWaiting();
    }
  }

  /**
   * Counts a failure, reports it, and schedules the next try: at once, to isolate the events at
   * fault, unless a store is unavailable; then after a wait that doubles with every failure.
   */
  private noteFailure(error: unknown): void {
    // A failed store fails the pass and the flushes after it with the same error: one failure.
    if (error === this.lastFailure) return;
    this.lastFailure = error;
    this.consecutiveFailures += 1;
    this.stats.failures += 1;
    const unavailable = isStoreUnavailable(error);
    if (!unavailable) this.isolateNext = true;
    // The first failure events may explain is isolated at once; any failure after it waits, so
    // one that no event explains is not retried in a loop.
    const backoff = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** (this.consecutiveFailures - 1));
    const delay = !unavailable && this.consecutiveFailures === 1 ? 0 : backoff;
    this.retryAt = Date.now() + delay;
    this.using.onFailure(error);
    if (this.closed) return;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.trigger();
    }, delay).unref();
  }

  private noteProgress(): void {
    this.consecutiveFailures = 0;
    this.lastFailure = null;
  }

  private async processLog(): Promise<void> {
    this.othersLogged = 0;
    await this.using.relay.catchUp();
    // After a failure, every store still running fails too (see `store`): once they have, the
    // pass reads the log from its start, and a failure counted from here on is a new one.
    if (this.committedThrough === 0) {
      await this.lastStore.catch(() => undefined);
      // Its failure was reported; this pass stores again what it did not.
      this.lastStore = this.storeBeforeLast = Promise.resolve();
    }
    // Entries logged after this point wait for the next pass, so a flush never chases new traffic.
    const end = await this.using.log.lastId();
    // Entries the previous pass committed may still be in the log, their store under way.
    let after = this.committedThrough;
    const failuresBefore = this.storeFailures;
    let committed = false;
    try {
      if (this.isolateNext) {
        const entries = await this.using.log.read(BATCH_EVENTS, after, end, (id) => this.heldEvents(id));
        if (entries.length > 0) {
          after = entries[entries.length - 1]!.id;
          await this.isolate(entries);
          this.committedThrough = after;
          this.settleWriter(after);
        }
        this.isolateNext = false;
        this.noteProgress();
      }
      for (;;) {
        // Leadership lost: the process that took it reads the log from its start.
        if (!this.leading) break;
        const entries = await this.using.log.read(BATCH_EVENTS, after, end, (id) => this.heldEvents(id));
        if (entries.length === 0) break;
        committed = true;
        const { batch, through } = await this.commitBatch(entries, failuresBefore, BATCH_ROW_BYTES);
        after = through;
        this.committedThrough = after;
        this.storeBeforeLast = this.lastStore;
        this.lastStore = this.store(batch, after, failuresBefore);
        // The replicas are written while the next batch is processed; `flush` waits for them.
        this.using.relay.flush().catch(() => undefined);
      }
    } catch (error) {
      this.committedThrough = 0;
      throw error;
    }
    // Nothing was left to process (at start-up with an empty log, say): once the last store is
    // in, every logged event is stored. A store settles the writer itself otherwise.
    if (!committed) {
      this.lastStore.then(
        () => {
          this.settleWriter(after);
          this.noteProgress();
        },
        () => undefined,
      );
    }
  }

  /** Tells the writer its uuid index is complete if nothing was committed after `throughId`. */
  private settleWriter(throughId: number): void {
    if (throughId === this.committedThrough) this.using.writer.settled();
  }

  /**
   * Processes a batch (its entries up to `maxRowBytes` of event rows; `through` is the last one
   * processed) and commits its catalog changes once the batch before the last is stored,
   * which bounds the batches held in memory for their stores. A store known to have failed since
   * the pass began fails the batch; one that fails later fails the stores after it (see `store`).
   */
  private async commitBatch(
    entries: readonly StoredCaptureLogEntry[],
    failuresBefore: number,
    maxRowBytes = Number.POSITIVE_INFINITY,
  ): Promise<{ batch: IngestionBatch; through: number }> {
    const { catalog, groupTypes, personWriteLock, relay } = this.using;
    let processed = entries.length;
    const batch = await personWriteLock.run(async () => {
      for (let attempt = 1; ; attempt++) {
        const epoch = await this.personEpoch.current();
        if (epoch !== this.knownPersonEpoch) this.personCache.clear();
        this.knownPersonEpoch = epoch;
        const batch = this.newBatch();
        try {
          processed = await batch.process(entries, maxRowBytes);
          await this.storeBeforeLast.catch(() => undefined);
          if (this.storeFailures !== failuresBefore) throw this.lastStoreError;
          // Durable before the entries are removed from the log (`store`), not on commit.
          await catalog.deferredSyncTransaction(this.db, async (trx) => {
            if ((await this.personEpoch.claim(trx)) !== epoch) throw new PersonsChanged();
            await batch.write(trx);
            await relay.pruneApplied(trx);
          });
          this.knownPersonEpoch = epoch + 1;
          batch.rememberCommitted();
          return batch;
        } catch (error) {
          // Whether the catalog holds the batch's changes is not known for every failure.
          this.personCache.clear();
          groupTypes.forgetAll();
          // Another process wrote persons after this batch read them: it is processed again.
          if (error instanceof PersonsChanged && attempt < MAX_PERSON_WRITE_RETRIES) continue;
          throw error;
        }
      }
    });
    const through = entries[processed - 1]!.id;
    this.dropHandedOver(through);
    if (this.unprocessed <= MAX_BACKLOG_EVENTS) this.admitWaiting();
    return { batch, through };
  }

  /**
   * Once the store before it is done, stores a batch's events and definitions, makes its catalog
   * commit durable, then removes the log entries it came from, up to `throughId`: until then, a
   * crash processes them again. After a store failure since its pass began (`failuresBefore`
   * failures before), it fails without storing anything: removing this batch's entries from the
   * log would take the failed batch's along. Its entries stay, and the next pass reads them again.
   */
  private store(batch: IngestionBatch, throughId: number, failuresBefore: number): Promise<void> {
    let started = 0;
    const done = this.lastStore
      .catch(() => undefined)
      .then(() => {
        if (this.storeFailures !== failuresBefore) throw this.lastStoreError;
        started = performance.now();
        return this.storeRowsAndDefinitions(batch);
      })
      .then(() => this.using.catalog.syncCommits())
      .then(() => this.using.log.remove(throughId))
      .then(
        () => {
          this.stats.batchesStored += 1;
          this.stats.eventsStored += batch.rows.count;
          this.stats.progressed();
          this.using.logger.debug(
            { events: batch.rows.count, throughEntry: throughId, ms: Math.round(performance.now() - started) },
            'ingestion: a batch stored and its log entries removed',
          );
          this.using.coordination.signal(CoordinationChannel.Processed, String(throughId));
          this.settleWriter(throughId);
          this.noteProgress();
        },
        (error: unknown) => {
          // What failed is still in the log: the next pass reads it again from the start.
          this.committedThrough = 0;
          this.storeFailures += 1;
          this.lastStoreError = error;
          this.noteFailure(error);
          throw error;
        },
      );
    // Awaited before the next commit and by every flush; until then a failure must not count as unhandled.
    done.catch(() => undefined);
    return done;
  }

  private newBatch(): IngestionBatch {
    const { groupTypes, definitions, warnings } = this.using;
    return new IngestionBatch({
      groups: this.groups,
      outbox: this.outbox,
      groupTypes,
      persons: this.persons,
      personCache: this.personCache,
      slices: this.slices,
      definitions,
      warnings,
    });
  }

  /** The event writer takes one call at a time: callers run stores one after another. */
  private async storeRowsAndDefinitions(batch: IngestionBatch): Promise<void> {
    const started = performance.now();
    const inserted = this.using.writer.insertNew(batch.rows).then(() => this.stats.recordInsert((performance.now() - started) / 1000));
    const results = await Promise.allSettled([inserted, this.recordDefinitions(batch)]);
    for (const result of results) if (result.status === 'rejected') throw result.reason;
  }

  private async recordDefinitions(batch: IngestionBatch): Promise<void> {
    for (const request of batch.recordable) await this.using.definitions.record(request.teamId, request.events, request.receivedAt);
  }

  /**
   * Processes the entries of a batch that failed for a reason no store explains, a part at a
   * time, in log order, each part processed, committed and stored before the next: a part that
   * fails is split in two, and an event that fails alone, twice, while both stores answer, is
   * set aside as a dead letter. A store that is unavailable meanwhile fails the whole, to be
   * retried later; what was stored by then is not stored twice (person changes applied again
   * come to the same, and the warehouse drops events it has). The entries are removed from the
   * log once every event is stored or set aside.
   */
  private async isolate(entries: readonly StoredCaptureLogEntry[]): Promise<void> {
    await this.lastStore.catch(() => undefined);
    const events: LoggedEventOf[] = [];
    for (const entry of entries) events.push(...loggedEventsOf(entry));
    await this.processApart(events);
    await this.using.catalog.syncCommits();
    await this.using.log.remove(entries[entries.length - 1]!.id);
    this.stats.progressed();
    this.using.coordination.signal(CoordinationChannel.Processed, String(entries[entries.length - 1]!.id));
    this.dropHandedOver(entries[entries.length - 1]!.id);
  }

  private async processApart(events: readonly LoggedEventOf[]): Promise<void> {
    if ((await this.failureOfPart(events)) === null) return;
    if (events.length > 1) {
      const middle = Math.ceil(events.length / 2);
      await this.processApart(events.slice(0, middle));
      await this.processApart(events.slice(middle));
      return;
    }
    // Once more alone, so that a failure that passes is not taken for the event's own.
    const failure = await this.failureOfPart(events);
    if (failure === null) return;
    await this.storesAnswer(failure);
    await this.setAside(events[0]!, failure);
  }

  /** Processes a part: null when it succeeded, else why it failed; a store being unavailable fails the caller. */
  private async failureOfPart(events: readonly LoggedEventOf[]): Promise<unknown> {
    try {
      await this.processPart(events);
      return null;
    } catch (error) {
      if (isStoreUnavailable(error)) throw error;
      return error ?? new Error('processing failed without an error');
    }
  }

  /** Processes, commits and stores some events of the log, as a batch of their own. */
  private async processPart(events: readonly LoggedEventOf[]): Promise<void> {
    if (events.some((event) => event.event === null)) throw new Error('the capture log entry could not be read as events');
    const { batch } = await this.commitBatch(partEntries(events), this.storeFailures);
    await this.storeRowsAndDefinitions(batch);
  }

  /** Fails with `failure` unless both stores answer: an event is set aside only while they do. */
  private async storesAnswer(failure: unknown): Promise<void> {
    try {
      await sql`select 1`.execute(this.using.catalog.db);
      await this.using.warehouseAnswers();
    } catch {
      throw failure;
    }
  }

  /** Stores an event that cannot be processed as a dead letter, with an ingestion warning saying why. */
  private async setAside(logged: LoggedEventOf, failure: unknown): Promise<void> {
    const error = failure instanceof Error ? failure.message : String(failure);
    const { teamId, receivedAt } = logged.entry;
    const event = logged.event;
    const warning = ingestionWarning('event_processing_failed', {
      eventUuid: event?.uuid ?? null,
      event: event?.event ?? null,
      distinctId: event?.distinctId ?? null,
      error,
    });
    await this.using.catalog.db.transaction().execute(async (trx) => {
      await this.deadLetters.withTransaction(trx).record(
        {
          teamId,
          eventUuid: event?.uuid ?? null,
          event: event?.event ?? null,
          distinctId: event?.distinctId ?? null,
          payload: logged.text,
          error,
          receivedAt,
        },
        Date.now(),
      );
      await this.using.warnings.withTransaction(trx).record([{ ...warning, teamId, at: receivedAt }]);
    });
    this.stats.deadLettered += 1;
    this.using.onFailure(new Error(`an event could not be processed and was set aside as a dead letter: ${error}`, { cause: failure }));
  }
}

/** The events of a log entry, each as its own JSON; the whole entry as one when it cannot be read. */
function loggedEventsOf(entry: StoredCaptureLogEntry): LoggedEventOf[] {
  const text = loggedEventsText(entry.events);
  let events: LoggedEvent[];
  try {
    events = JSON.parse(text) as LoggedEvent[];
    if (!Array.isArray(events)) throw new Error('not a list of events');
    return events.map((event) => ({
      entry,
      text: serializeLoggedEvents([event]).json.slice(1, -1),
      event: { uuid: String(event.uuid), event: String(event.event), distinctId: String(event.distinctId) },
    }));
  } catch {
    return [{ entry, text, event: null }];
  }
}

/** Log entries holding just these events, in order: consecutive events of an entry share one. */
function partEntries(events: readonly LoggedEventOf[]): StoredCaptureLogEntry[] {
  const entries: StoredCaptureLogEntry[] = [];
  let texts: string[] = [];
  for (const [index, { entry, text }] of events.entries()) {
    texts.push(text);
    if (events[index + 1]?.entry !== entry) {
      entries.push({ id: entry.id, teamId: entry.teamId, receivedAt: entry.receivedAt, events: loggedEventsBytes(`[${texts.join(',')}]`) });
      texts = [];
    }
  }
  return entries;
}
