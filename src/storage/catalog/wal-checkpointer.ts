import fs from 'node:fs';
import { Worker } from 'node:worker_threads';

export type CheckpointRequest = 'checkpoint' | 'close';

export type CheckpointResult = { walFrames: number; checkpointedFrames: number } | { failure: string };

/**
 * Checkpoints the catalog's WAL on a worker thread once it has grown past `thresholdBytes`.
 * Left to the writing connection, a checkpoint runs inside the commit that crosses SQLite's
 * threshold: on the main thread, copying and syncing up to the whole WAL (measured: every third or
 * fourth capture batch's commit took 110–146 ms instead of 11–54, while no request was answered).
 * The connection keeps a higher automatic threshold as a backstop in case this one falls behind.
 */
export class WalCheckpointer {
  private readonly worker: Worker;
  private readonly walFile: string;
  private running: Promise<CheckpointResult> | null = null;
  /** Closed, or the thread is gone: the connection's automatic checkpoint carries on alone. */
  private closed = false;

  constructor(
    databaseFile: string,
    private readonly thresholdBytes: number,
  ) {
    this.walFile = `${databaseFile}-wal`;
    this.worker = new Worker(new URL('./wal-checkpoint-worker.js', import.meta.url), { workerData: { file: databaseFile } });
    // Idle between checkpoints, the thread must not keep the process alive.
    this.worker.unref();
    this.worker.once('exit', () => {
      this.closed = true;
    });
  }

  /**
   * Starts a checkpoint if the WAL has grown past the threshold and none is running; resolves with
   * its result, or null when none was started. Never rejects: a failed checkpoint is retried on the
   * next call, and the connection's own automatic checkpoint stays as the backstop.
   */
  poke(): Promise<CheckpointResult | null> {
    if (this.closed || this.running) return Promise.resolve(null);
    let size: number;
    try {
      size = fs.statSync(this.walFile).size;
    } catch {
      return Promise.resolve(null);
    }
    if (size < this.thresholdBytes) return Promise.resolve(null);
    const running = new Promise<CheckpointResult>((resolve) => {
      const settle = (result: CheckpointResult) => {
        this.worker.off('message', settle);
        this.worker.off('error', fail);
        this.worker.off('exit', exited);
        resolve(result);
      };
      const fail = (error: Error) => settle({ failure: error.message });
      const exited = () => settle({ failure: 'the checkpoint thread exited' });
      this.worker.on('message', settle);
      this.worker.on('error', fail);
      this.worker.once('exit', exited);
      this.worker.ref();
      this.worker.postMessage('checkpoint' satisfies CheckpointRequest);
    }).finally(() => {
      this.worker.unref();
      this.running = null;
    });
    this.running = running;
    return running;
  }

  /** Waits for a running checkpoint, then closes the thread's connection. */
  async close(): Promise<void> {
    await this.running;
    if (this.closed) return;
    this.closed = true;
    this.worker.ref();
    const exited = new Promise<void>((resolve) => this.worker.once('exit', () => resolve()));
    this.worker.postMessage('close' satisfies CheckpointRequest);
    await exited;
  }
}
