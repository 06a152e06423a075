import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Lets the event loop run what is waiting (I/O, answers) before the caller goes on: long work
 * on the main thread calls it now and then, so it does not hold up everything else.
 */
export function yieldToEventLoop(): Promise<void> {
  return nextTurn();
}

/**
 * Long work cut into slices of about `sliceMs`: `pause()` yields to the event loop only once the
 * slice is spent, so work done in many small steps pays for few yields, and nothing waiting on
 * the event loop (capture acknowledgements above all) waits longer than a slice.
 */
export class TimeSlices {
  private sliceStart = performance.now();

  constructor(private readonly sliceMs: number) {}

  async pause(): Promise<void> {
    if (performance.now() - this.sliceStart < this.sliceMs) return;
    await yieldToEventLoop();
    this.sliceStart = performance.now();
  }
}
