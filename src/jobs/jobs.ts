import type { AppContext } from '../context.js';

/** A kind of queued background work, run by the schedule and by `tally jobs run`. */
export interface Job {
  name: string;
  /** Runs every queued task of this kind; returns how many tasks ran. */
  runQueued(context: AppContext): Promise<number>;
}

/** The registered jobs; the persons issue adds event deletion. */
export const JOBS: Job[] = [];

export async function runQueuedJobs(context: AppContext): Promise<{ name: string; tasks: number }[]> {
  const results = [];
  for (const job of JOBS) results.push({ name: job.name, tasks: await job.runQueued(context) });
  return results;
}
