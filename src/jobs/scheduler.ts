import { Cron } from 'croner';
import type { AppContext } from '../context.js';
import { runQueuedJobs } from './jobs.js';

/**
 * Runs the queued jobs on a cron schedule (UTC), the same code path as `tally jobs run`. A run
 * never overlaps the previous one, nor another process's on shared stores (every process has the
 * schedule; the first to start a run does it); a failed run is logged and its tasks wait for the next.
 */
export class JobScheduler {
  private readonly cron: Cron;
  private running: Promise<void> = Promise.resolve();

  constructor(
    private readonly context: AppContext,
    schedule: string,
  ) {
    this.cron = new Cron(schedule, { timezone: 'UTC', protect: true }, () => {
      this.running = this.runOnce();
      return this.running;
    });
  }

  private async runOnce(): Promise<void> {
    try {
      const started = performance.now();
      const results = await runQueuedJobs(this.context);
      if (results === null) this.context.logger.debug('scheduled jobs skipped: another Tally process is running them');
      const ms = Math.round(performance.now() - started);
      for (const result of results ?? []) {
        if (result.tasks > 0) this.context.logger.info({ job: result.name, tasks: result.tasks, ms }, `${result.name}: ${result.tasks} tasks ran in ${ms} ms`);
      }
    } catch (error) {
      this.context.logger.error({ err: error }, 'scheduled jobs failed');
    }
  }

  /** Stops scheduling and waits for a run in progress, so the stores can close under it safely. */
  async stop(): Promise<void> {
    this.cron.stop();
    await this.running;
  }
}
