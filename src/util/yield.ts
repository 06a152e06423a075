import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Lets the event loop run what is waiting (I/O, answers) before the caller goes on: long work
 * on the main thread calls it now and then, so it does not hold up everything else.
 */
export function yieldToEventLoop(): Promise<void> {
  return nextTurn();
}
