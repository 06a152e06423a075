/** A FIFO async lock: callers run one at a time, in the order they asked. */
export class Mutex {
  private tail: Promise<unknown> = Promise.resolve();
  private turnsStarted = 0;

  /**
   * How many callers have started their work, this one included when read inside `run`: a
   * caller that remembers its own turn can tell whether anyone else held the lock since.
   */
  get turns(): number {
    return this.turnsStarted;
  }

  run<T>(work: () => Promise<T>): Promise<T> {
    const start = () => {
      this.turnsStarted += 1;
      return work();
    };
    const result = this.tail.then(start, start);
    this.tail = result.catch(() => undefined);
    return result;
  }
}
