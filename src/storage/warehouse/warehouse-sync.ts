import type { EventWriter } from '../../capture/event-writer.js';
import type { CatalogDb } from '../catalog/catalog.js';
import { CoalescingRunner } from '../../util/coalescing-runner.js';
import type { OutboxRelay } from './outbox.js';

const MOVE_CHUNK = 20_000;
/** Moved rows left in the queue before the sync deletes them with a commit of its own. */
const PRUNE_THRESHOLD = 20_000;

/**
 * Brings the warehouse in step with the catalog: replica changes from the outbox, then accepted
 * events from the pending queue, in large inserts. Capture triggers it after each commit without
 * waiting; every warehouse read awaits it (see ConsistentWarehouse), so a read always sees every
 * acknowledged write while ingestion never waits for a warehouse part to be written.
 */
export class WarehouseSync {
  private readonly runner: CoalescingRunner;
  private movedThrough = 0;
  private prunedThrough = 0;

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

  /**
   * Deletes the events already moved, in the caller's transaction, so moving costs no catalog
   * commit of its own. A crash before that only means moving them again: the writer drops
   * events whose uuid is already stored.
   */
  async pruneMoved(db: CatalogDb): Promise<void> {
    const through = this.movedThrough;
    if (through <= this.prunedThrough) return;
    await db.deleteFrom('pending_events').where('id', '<=', through).execute();
    this.prunedThrough = through;
  }

  private async pass(): Promise<void> {
    await this.relay.flush();
    for (;;) {
      const pending = await this.db
        .selectFrom('pending_events')
        .selectAll()
        .where('id', '>', this.movedThrough)
        .orderBy('id')
        .limit(MOVE_CHUNK)
        .execute();
      if (pending.length === 0) break;
      await this.writer.insertNew(pending.map((row) => ({ teamId: Number(row.team_id), uuid: row.uuid, json: row.row })));
      this.movedThrough = Number(pending[pending.length - 1]!.id);
      if (pending.length < MOVE_CHUNK) break;
    }
    this.writer.settled();
    if (this.movedThrough - this.prunedThrough >= PRUNE_THRESHOLD) await this.pruneMoved(this.db);
  }
}
