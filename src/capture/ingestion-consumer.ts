import type { DefinitionRecorder } from '../definitions/definition-recorder.js';
import { PersonRepository } from '../persons/person-repository.js';
import type { Catalog } from '../storage/catalog/catalog.js';
import type { OutboxRelay } from '../storage/warehouse/outbox.js';
import { CoalescingRunner } from '../util/coalescing-runner.js';
import type { Mutex } from '../util/mutex.js';
import { lastCaptureLogId, readCaptureLog, removeFromCaptureLog, type StoredCaptureLogEntry } from './capture-log.js';
import type { EventWriter } from './event-writer.js';
import type { GroupTypeRegistry } from './group-types.js';
import { IngestionBatch } from './ingestion-batch.js';

/**
 * Events per batch: large enough that the catalog writes, the warehouse insert and its part
 * are shared by many requests, small enough to keep a batch's memory to tens of megabytes.
 */
const BATCH_EVENTS = 20_000;

/**
 * Processes the capture log behind the acknowledgements: person and group processing, the events
 * into the warehouse, then the person changes, their replica outbox and the removal of the entries
 * in one catalog transaction, then the replicas and the definitions.
 *
 * The warehouse insert comes before the catalog commit, and the catalog is only read until then,
 * so after a failure or a crash the same entries are processed again from the same catalog state
 * with the same result, and the warehouse drops the events it already has (uuid dedup).
 *
 * Every read of persons, definitions or the warehouse awaits `flush()`, so it sees every
 * acknowledged event.
 */
export class IngestionConsumer {
  private readonly runner = new CoalescingRunner(() => this.pass());
  private readonly persons = new PersonRepository();
  private unprocessed = 0;

  constructor(
    private readonly catalog: Catalog,
    private readonly relay: OutboxRelay,
    private readonly writer: EventWriter,
    private readonly groupTypes: GroupTypeRegistry,
    private readonly definitions: DefinitionRecorder,
    /** Every person write (this consumer and the persons API) runs under this lock, in turn. */
    private readonly personWriteLock: Mutex,
    private readonly onBackgroundError: (error: unknown) => void,
  ) {}

  /** Resolves once everything logged before the call is processed. */
  flush(): Promise<void> {
    return this.runner.run();
  }

  /** Starts a flush without waiting for it; a failure is reported, and the next flush retries it. */
  trigger(): void {
    this.runner.run().catch(this.onBackgroundError);
  }

  /** Events this process logged that are not processed yet. */
  get backlog(): number {
    return this.unprocessed;
  }

  noteLogged(events: number): void {
    this.unprocessed += events;
  }

  private async pass(): Promise<void> {
    await this.relay.flush();
    // Entries logged after this point wait for the next pass, so a flush never chases new traffic.
    const end = await lastCaptureLogId(this.catalog.db);
    for (;;) {
      const entries = await readCaptureLog(this.catalog.db, BATCH_EVENTS, end);
      if (entries.length === 0) break;
      await this.process(entries);
      // The replicas are written while the next batch is processed; a failure surfaces below.
      this.relay.flush().catch(() => undefined);
    }
    await this.relay.flush();
    this.writer.settled();
  }

  private async process(entries: readonly StoredCaptureLogEntry[]): Promise<void> {
    const batch = new IngestionBatch(this.catalog.db, this.groupTypes, this.persons);
    await this.personWriteLock.run(async () => {
      try {
        await batch.process(entries);
        await this.writer.insertNew(batch.rows);
        await this.catalog.db.transaction().execute(async (trx) => {
          await batch.write(trx);
          await removeFromCaptureLog(trx, entries[entries.length - 1]!.id);
          await this.relay.pruneApplied(trx);
        });
      } catch (error) {
        this.groupTypes.forgetAll();
        throw error;
      }
    });
    this.unprocessed = Math.max(0, this.unprocessed - batch.rows.length);
    for (const request of batch.recordable) await this.definitions.record(request.teamId, request.events, request.receivedAt);
  }
}
