import type { EventWriter } from '../../capture/event-writer.js';
import { readPendingEvents } from '../../capture/pending-events.js';
import type { CatalogDb } from '../catalog/catalog.js';
import { QueueProgress } from '../catalog/queue-progress.js';
import { CoalescingRunner } from '../../util/coalescing-runner.js';
import type { OutboxRelay } from './outbox.js';

/** Capture requests per warehouse insert (a few hundred requests: tens of thousands of events from SDK batches). */
const MOVE_CHUNK = 300;

/**
 * Brings the warehouse in step with the catalog: replica changes from the outbox, then accepted
 * events from the pending queue, in large inserts. Capture triggers it after each commit without
 * waiting; every warehouse read awaits it (see ConsistentWarehouse), so a read always sees every
 * acknowledged write while ingestion never waits for a warehouse part to be written.
 */
export class WarehouseSync {
  private readonly runner: CoalescingRunner;
  private readonly progress = new QueueProgress('pending_event_batches', MOVE_CHUNK);

  constructor(
    private readonly db: CatalogDb,
    private readonly relay: OutboxRelay,
    private readonly writer: EventWriter,
    private readonly onBackgroundError: (error: unknown) => void,
  ) {
    this.runner = new CoalescingRunner(() => this.pass());
  }

  /** Resolves once everything committed before the call is in the warehouse. */
  flush(): Promise<void> {
    return this.runner.run();
  }

  /** Starts a flush without waiting for it; a failure is reported and retried by the next flush. */
  trigger(): void {
    this.runner.run().catch(this.onBackgroundError);
  }

  /** Deletes the events already moved, in the caller's transaction (see QueueProgress). */
  pruneMoved(db: CatalogDb): Promise<void> {
    return this.progress.prune(db);
  }

  private async pass(): Promise<void> {
    await this.relay.flush();
    for (;;) {
      const pending = await readPendingEvents(this.db, this.progress.carriedThrough, MOVE_CHUNK);
      if (pending.lastId === null) break;
      await this.writer.insertNew(pending.rows);
      this.progress.markCarried(pending.lastId);
      if (pending.requests < MOVE_CHUNK) break;
    }
    this.writer.settled();
    if (this.progress.wantsPruning) await this.progress.prune(this.db);
  }
}
