import { DeletionTaskRepository, type DeletionTask } from '../persons/deletion-task-repository.js';
import { isoToClickhouse } from '../storage/warehouse/datetime.js';
import type { QueryParams, Warehouse } from '../storage/warehouse/warehouse.js';
import { chunks } from '../util/chunks.js';
import { nowIso } from '../util/time.js';
import type { Job } from './jobs.js';

/** Tasks per DELETE statement: each DELETE is a mutation, so queued tasks are batched. */
const TASKS_PER_STATEMENT = 100;

export class JobFailed extends Error {}

/**
 * One condition per task, on the events it deletes: its person's distinct ids, up to the moment
 * the task was queued. Task values are bound parameters named after the task's position.
 */
function taskConditions(batch: readonly DeletionTask[]): { conditions: string[]; params: QueryParams } {
  const params: QueryParams = {};
  const conditions = batch.map((task, position) => {
    params[`team_${position}`] = task.teamId;
    params[`ids_${position}`] = task.distinctIds;
    params[`until_${position}`] = isoToClickhouse(task.createdAt);
    return (
      `(team_id = {team_${position}:Int64} AND distinct_id IN {ids_${position}:Array(String)}` + ` AND timestamp <= {until_${position}:DateTime64(6, 'UTC')})`
    );
  });
  return { conditions, params };
}

/**
 * Runs queued event-deletion tasks: one lightweight DELETE per batch of tasks, waited for, then
 * a count of what is left per task. A task is marked `delete_verified_at` only when none of its
 * events remain; otherwise it stays pending and the next run retries it.
 */
export class EventDeletionRunner {
  constructor(
    private readonly tasks: DeletionTaskRepository,
    private readonly warehouse: Warehouse,
  ) {}

  async runPending(): Promise<number> {
    const pending = await this.tasks.pending();
    const failures: string[] = [];
    for (const batch of chunks(pending, TASKS_PER_STATEMENT)) {
      try {
        await this.deleteEvents(batch);
        const remaining = await this.remainingEvents(batch);
        const done = batch.filter((_, position) => remaining[position] === 0);
        const left = batch.filter((_, position) => remaining[position] !== 0);
        await this.tasks.markVerified(
          done.map((task) => task.id),
          nowIso(),
        );
        await this.tasks.recordFailure(
          left.map((task) => task.id),
          'events remained after the deletion',
        );
        if (left.length > 0) failures.push(`${left.length} tasks still had events after the deletion`);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        await this.tasks.recordFailure(
          batch.map((task) => task.id),
          message,
        );
        failures.push(`${batch.length} tasks failed: ${message}`);
      }
    }
    if (failures.length > 0) throw new JobFailed(`event deletion: ${failures.join('; ')} (they stay queued for the next run)`);
    return pending.length;
  }

  private async deleteEvents(batch: DeletionTask[]): Promise<void> {
    const { conditions, params } = taskConditions(batch);
    const { layout } = this.warehouse;
    // lightweight_deletes_sync = 2 waits until every replica applied the delete. On a cluster
    // each shard deletes from the events it stores: a Distributed table takes no DELETE.
    await this.warehouse.command(
      `DELETE FROM ${layout.storedTable('events')}${layout.onCluster} WHERE ${conditions.join(' OR ')} SETTINGS lightweight_deletes_sync = 2`,
      params,
    );
  }

  private async remainingEvents(batch: DeletionTask[]): Promise<number[]> {
    const { conditions, params } = taskConditions(batch);
    const counts = conditions.map((condition, position) => `countIf(${condition}) AS remaining_${position}`).join(', ');
    const [row] = await this.warehouse.query<Record<string, string | number>>(`SELECT ${counts} FROM events WHERE ${conditions.join(' OR ')}`, params);
    return batch.map((_, position) => Number(row?.[`remaining_${position}`] ?? 0));
  }
}

export const eventDeletionJob: Job = {
  name: 'event deletion',
  runQueued: (context) => new EventDeletionRunner(new DeletionTaskRepository(context.catalog.db), context.warehouse).runPending(),
};
