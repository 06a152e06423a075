import { Worker } from 'node:worker_threads';
import { ApiError, type ErrorType } from '../errors.js';
import type { CaptureRequest } from './accept-request.js';

export interface DecodeTask {
  id: number;
  request: Omit<CaptureRequest, 'body'> & { body: Uint8Array };
}

export type DecodeReply =
  | { id: number; token: string; eventCount: number; events: Uint8Array; propertiesSpans?: Uint32Array }
  | { id: number; apiError: { status: number; type: ErrorType; code: string; detail: string; attr: string | null } }
  | { id: number; failure: string };

/** A request accepted by the decoding thread: its events already serialised for the capture log (see `CaptureLogEntry`). */
export interface DecodedRequest {
  token: string;
  eventCount: number;
  events: Uint8Array;
  /** See `SerializedEvents`. */
  propertiesSpans?: Uint32Array;
}

interface Pending {
  resolve(decoded: DecodedRequest): void;
  reject(error: unknown): void;
}

/**
 * Runs `acceptCaptureRequest` on a worker thread: decompressing, parsing, validating,
 * normalising and serialising a request's events take a fifth of the main thread's time per event
 * otherwise. One thread, so requests are answered in the order they were given.
 */
export class RequestDecoder {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;

  decode(request: CaptureRequest): Promise<DecodedRequest> {
    const id = this.nextId++;
    const { body, ...rest } = request;
    // A copy of exactly the body: a view would send its whole underlying buffer along.
    const task: DecodeTask = { id, request: { ...rest, body: new Uint8Array(body) } };
    const worker = this.running();
    // The thread keeps the process alive only while it has work: an idle decoder nobody closed must not.
    if (this.pending.size === 0) worker.ref();
    return new Promise<DecodedRequest>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage(task);
    });
  }

  /** Stops the thread; requests it still had fail rather than wait forever. */
  async close(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    this.abandon(worker, new Error('the capture decoding thread was closed'));
    await worker.terminate();
  }

  private running(): Worker {
    if (this.worker) return this.worker;
    // Its objects live for one request: a small young generation serves it (the process's flag would give it a larger one).
    const worker = new Worker(new URL('./decode-worker.js', import.meta.url), { resourceLimits: { maxYoungGenerationSizeMb: 32 } });
    worker.on('message', (reply: DecodeReply) => this.settle(reply));
    worker.on('error', (error) => this.abandon(worker, error));
    worker.on('exit', (code) => this.abandon(worker, new Error(`the capture decoding thread exited with code ${code}`)));
    this.worker = worker;
    return worker;
  }

  private settle(reply: DecodeReply): void {
    const pending = this.pending.get(reply.id);
    if (!pending) return;
    this.pending.delete(reply.id);
    if (this.pending.size === 0) this.worker?.unref();
    if ('events' in reply) {
      const { token, eventCount, events, propertiesSpans } = reply;
      pending.resolve({ token, eventCount, events, propertiesSpans });
    } else if ('apiError' in reply) {
      const { status, type, code, detail, attr } = reply.apiError;
      pending.reject(new ApiError(status, type, code, detail, attr));
    } else pending.reject(new Error(`decoding a capture request failed: ${reply.failure}`));
  }

  /** A thread that died fails what it had; the next request starts a new one. */
  private abandon(worker: Worker, error: unknown): void {
    if (this.worker !== worker) return;
    this.worker = null;
    for (const pending of this.pending.values()) pending.reject(error);
    this.pending.clear();
  }
}
