import { Worker } from 'node:worker_threads';
import type { CatalogOptions } from '../storage/catalog/catalog.js';
import type { StoredCaptureLogEntry } from './capture-log.js';
import { EventRows, type EventRowsData } from './event-row-buffer.js';

/** A batch of log entries for the thread to process and commit. */
export interface BatchTask {
  kind: 'batch';
  id: number;
  entries: readonly StoredCaptureLogEntry[];
  /** Applied replica outbox rows to delete in the batch's transaction, through this id. */
  pruneOutboxThrough: number | null;
}

/** An event definition was deleted: the thread's recorder must create it again on its next sighting. */
export interface ForgetEventTask {
  kind: 'forget-event';
  teamId: number;
  name: string;
}

export interface CloseTask {
  kind: 'close';
}

export type BatchThreadTask = BatchTask | ForgetEventTask | CloseTask;

export type BatchReply = { id: number; rows: EventRowsData } | { id: number; failure: string };

interface Pending {
  resolve(rows: EventRows): void;
  reject(error: unknown): void;
}

/**
 * Runs `IngestionBatch` on a thread of its own, with its own catalog connection: person and group
 * processing, the batch's catalog transaction and the definitions it adds. On the main thread
 * they took about half of its time per event, and every answer waited behind their statements.
 * The thread keeps the group-type and definition caches; the warehouse insert stays on the main
 * thread, which holds the warehouse. Callers give one batch at a time.
 */
export class BatchThread {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;

  constructor(private readonly catalog: CatalogOptions) {}

  /**
   * Processes and commits the entries (durable once the catalog's `syncCommits` resolves); gives
   * back their event rows for the warehouse.
   */
  commit(entries: readonly StoredCaptureLogEntry[], pruneOutboxThrough: number | null): Promise<EventRows> {
    const id = this.nextId++;
    const task: BatchTask = { kind: 'batch', id, entries, pruneOutboxThrough };
    const worker = this.running();
    // The thread keeps the process alive only while it has work: an idle one nobody closed must not.
    if (this.pending.size === 0) worker.ref();
    return new Promise<EventRows>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage(task);
    });
  }

  /** After an event definition is deleted, its next sighting must create it again. */
  forgetEvent(teamId: number, name: string): void {
    // A thread not running keeps nothing: the next one starts with empty caches.
    const task: ForgetEventTask = { kind: 'forget-event', teamId, name };
    this.worker?.postMessage(task);
  }

  /** Closes the thread's catalog connection and ends it; a batch it still had fails. */
  async close(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.ref();
    const task: CloseTask = { kind: 'close' };
    worker.postMessage(task);
    await exited;
  }

  private running(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(new URL('./batch-worker.js', import.meta.url), { workerData: this.catalog });
    worker.on('message', (reply: BatchReply) => this.settle(reply));
    worker.on('error', (error) => this.abandon(worker, error));
    worker.on('exit', (code) => this.abandon(worker, new Error(`the capture batch thread exited with code ${code}`)));
    worker.unref();
    this.worker = worker;
    return worker;
  }

  private settle(reply: BatchReply): void {
    const pending = this.pending.get(reply.id);
    if (!pending) return;
    this.pending.delete(reply.id);
    if (this.pending.size === 0) this.worker?.unref();
    if ('rows' in reply) pending.resolve(new EventRows(reply.rows));
    else pending.reject(new Error(`processing a capture batch failed: ${reply.failure}`));
  }

  /** A thread that ended fails what it had; the next batch starts a new one. */
  private abandon(worker: Worker, error: unknown): void {
    if (this.worker !== worker) return;
    this.worker = null;
    for (const pending of this.pending.values()) pending.reject(error);
    this.pending.clear();
  }
}
