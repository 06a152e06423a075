/** A FIFO async lock: callers run one at a time, in the order they asked. */
export class Mutex {
  private tail: Promise<unknown> = Promise.resolve();
  private begun = 0;

  run<T>(work: () => Promise<T>): Promise<T> {
    const start = () => {
      this.begun += 1;
      return work();
    };
    const result = this.tail.then(start, start);
    this.tail = result.catch(() => undefined);
    return result;
  }

  /**
   * How many holders the lock has had, the current one included. A holder that finds it one more
   * than at the end of its previous turn knows nobody else held the lock in between.
   */
  get turns(): number {
    return this.begun;
  }
}
