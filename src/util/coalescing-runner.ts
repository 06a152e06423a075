/**
 * Runs a pass of work on demand, one pass at a time. A request that arrives while a pass runs
 * is served by the next pass, which every such request shares — group commit: many callers,
 * one write, and each caller learns the outcome of a pass that started after its request.
 */
export class CoalescingRunner {
  private running: Promise<void> | null = null;
  private next: Promise<void> | null = null;

  constructor(private readonly pass: () => Promise<void>) {}

  run(): Promise<void> {
    if (!this.running) return this.start();
    if (!this.next) {
      const current = this.running;
      this.next = current
        .catch(() => undefined)
        .then(() => {
          this.next = null;
          return this.start();
        });
    }
    return this.next;
  }

  private start(): Promise<void> {
    const running = this.pass().finally(() => {
      if (this.running === running) this.running = null;
    });
    this.running = running;
    return running;
  }
}
