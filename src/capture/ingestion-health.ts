import type { CaptureLog } from './capture-log.js';
import type { IngestionStats } from './ingestion-stats.js';

/** Ingestion as the health check reports it. */
export interface IngestionHealthReport {
  /** Seconds the oldest waiting event has waited; 0 when none waits. */
  lag_s: number;
  /** Events acknowledged and not yet processed. */
  backlog: number;
  /** True when events wait and no log entry was processed for longer than the stall limit. */
  failing: boolean;
}

/**
 * Whether acknowledged events move into the warehouse. Capture keeps answering 200 while a store
 * refuses writes (the events are durable in the log), so the answers alone would hide a stuck
 * ingestion: this looks at the log. Ingestion is stuck when events wait and nothing was processed
 * since the oldest of them arrived, or for the stall limit, whichever is shorter.
 */
export class IngestionHealth {
  constructor(
    private readonly log: CaptureLog,
    private readonly stats: IngestionStats,
    private readonly stallSeconds: number,
  ) {}

  async check(now = Date.now()): Promise<IngestionHealthReport> {
    const { events, oldestReceivedAt } = await this.log.backlog();
    if (events === 0 || oldestReceivedAt === null) return { lag_s: 0, backlog: 0, failing: false };
    const stalledSince = Math.max(this.stats.lastProgressAt, oldestReceivedAt);
    return {
      lag_s: Math.max(0, Math.round(now - oldestReceivedAt) / 1000),
      backlog: events,
      failing: now - stalledSince > this.stallSeconds * 1000,
    };
  }
}
