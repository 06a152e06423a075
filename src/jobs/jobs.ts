import type { AppContext } from '../context.js';
import { CoordinatedWork } from '../storage/catalog/process-coordination.js';
import { eventDeletionJob } from './event-deletion-job.js';

/** A kind of queued background work, run by the schedule and by `tally jobs run`. */
export interface Job {
  name: string;
  /** Runs every queued task of this kind; returns how many tasks ran. */
  runQueued(context: AppContext): Promise<number>;
}

export const JOBS: Job[] = [eventDeletionJob];

/**
 * Runs every queued task of every job; null when another process sharing the stores is running
 * them at the moment (its run takes the tasks queued by then).
 */
export function runQueuedJobs(context: AppContext): Promise<{ name: string; tasks: number }[] | null> {
  return context.coordination.ifNoneElse(CoordinatedWork.Jobs, async () => {
    const results = [];
    for (const job of JOBS) results.push({ name: job.name, tasks: await job.runQueued(context) });
    return results;
  });
}
