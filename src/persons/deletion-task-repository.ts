import type { Selectable } from 'kysely';
import type { CatalogDb, CatalogTransaction } from '../storage/catalog/catalog.js';
import type { EventDeletionTaskTable } from '../storage/catalog/schema.js';
import { parseJsonColumn } from '../util/json.js';

/** A queued (or finished) deletion of one deleted person's events. */
export interface DeletionTask {
  id: number;
  teamId: number;
  personUuid: string;
  distinctIds: string[];
  /** Events up to this instant are deleted. */
  createdAt: string;
  deleteVerifiedAt: string | null;
  attempts: number;
  lastError: string | null;
}

export type DeletionStatusFilter = 'pending' | 'completed' | 'all';

export interface DeletionTaskQuery {
  teamId: number;
  status: DeletionStatusFilter;
  personUuid: string | null;
}

function toTask(row: Selectable<EventDeletionTaskTable>): DeletionTask {
  return {
    id: Number(row.id),
    teamId: Number(row.team_id),
    personUuid: row.person_uuid,
    distinctIds: parseJsonColumn<string[]>(row.distinct_ids, []),
    createdAt: row.created_at,
    deleteVerifiedAt: row.delete_verified_at,
    attempts: Number(row.attempts),
    lastError: row.last_error,
  };
}

/** Catalog SQL for event-deletion tasks. */
export class DeletionTaskRepository {
  constructor(private readonly db: CatalogDb) {}

  withTransaction(trx: CatalogTransaction): DeletionTaskRepository {
    return new DeletionTaskRepository(trx);
  }

  async queue(task: { teamId: number; personUuid: string; distinctIds: readonly string[]; createdAt: string; createdById: number | null }): Promise<void> {
    await this.db
      .insertInto('event_deletion_tasks')
      .values({
        team_id: task.teamId,
        person_uuid: task.personUuid,
        distinct_ids: JSON.stringify(task.distinctIds),
        created_at: task.createdAt,
        created_by_id: task.createdById,
        delete_verified_at: null,
        attempts: 0,
        last_error: null,
      })
      .execute();
  }

  /** Every task not yet verified, oldest first. */
  async pending(): Promise<DeletionTask[]> {
    const rows = await this.db.selectFrom('event_deletion_tasks').selectAll().where('delete_verified_at', 'is', null).orderBy('id').execute();
    return rows.map(toTask);
  }

  async markVerified(ids: readonly number[], at: string): Promise<void> {
    if (ids.length === 0) return;
    await this.db
      .updateTable('event_deletion_tasks')
      .set((eb) => ({ delete_verified_at: at, attempts: eb('attempts', '+', 1), last_error: null }))
      .where('id', 'in', ids)
      .execute();
  }

  /** Leaves the tasks pending, so the next run retries them, and records why they failed. */
  async recordFailure(ids: readonly number[], error: string): Promise<void> {
    if (ids.length === 0) return;
    await this.db
      .updateTable('event_deletion_tasks')
      .set((eb) => ({ attempts: eb('attempts', '+', 1), last_error: error }))
      .where('id', 'in', ids)
      .execute();
  }

  /** A page of a project's tasks, newest first, with the number of matching tasks. */
  async list(query: DeletionTaskQuery, page: { limit: number; offset: number }) {
    let matching = this.db.selectFrom('event_deletion_tasks').where('team_id', '=', query.teamId);
    if (query.status === 'pending') matching = matching.where('delete_verified_at', 'is', null);
    if (query.status === 'completed') matching = matching.where('delete_verified_at', 'is not', null);
    if (query.personUuid !== null) matching = matching.where('person_uuid', '=', query.personUuid);
    const total = await matching.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    const rows = await matching.selectAll().orderBy('id', 'desc').limit(page.limit).offset(page.offset).execute();
    return { total: Number(total.n), tasks: rows.map(toTask) };
  }
}
