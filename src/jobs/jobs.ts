import type { AppContext } from '../context.js';
import { eventDeletionJob } from './event-deletion-job.js';

/** A kind of queued background work, run by the schedule and by `tally jobs run`. */
export interface Job {
  name: string;
  /** Runs every queued task of this kind; returns how many tasks ran. */
  runQueued(context: AppContext): Promise<number>;
}

export const JOBS: Job[] = [eventDeletionJob];

export async function runQueuedJobs(context: AppContext): Promise<{ name: string; tasks: number }[]> {
  const results = [];
  for (const job of JOBS) results.push({ name: job.name, tasks: await job.runQueued(context) });
  return results;
}
