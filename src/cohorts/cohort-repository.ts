import type { Selectable } from 'kysely';
import type { CatalogDb } from '../storage/catalog/catalog.js';
import type { CohortTable } from '../storage/catalog/schema.js';
import type { OutboxEntry } from '../storage/warehouse/outbox.js';
import type { OutboxRepository } from '../storage/warehouse/outbox-repository.js';
import { chunks } from '../util/chunks.js';
import { parseJsonColumn } from '../util/json.js';
import { nowIso } from '../util/time.js';
import type { Cohort } from './cohort.js';
import { CREATOR_COLUMNS, creatorOf, type CreatorRow } from '../actions/creator.js';

export interface NewCohort {
  teamId: number;
  name: string | null;
  description: string;
  filters: Cohort['filters'];
  groups: unknown[];
  isStatic: boolean;
  createdById: number | null;
}

export interface CohortChanges {
  name?: string | null;
  description?: string;
  filters?: Cohort['filters'];
  groups?: unknown[];
  isStatic?: boolean;
  deleted?: boolean;
}

/** Members per insert statement: four parameters each, well under every bound-parameter limit. */
const MEMBERS_PER_STATEMENT = 500;

/** The warehouse copy of a static membership, keyed by person UUID. */
function memberReplicaEntry(teamId: number, cohortId: number, personUuid: string): OutboxEntry {
  return { target: 'static_cohort_members', row: { team_id: teamId, cohort_id: cohortId, person_id: personUuid, is_deleted: 0 } };
}

/** Catalog SQL for cohorts and static cohort members; reads are scoped to a project. */
export class CohortRepository {
  constructor(
    private readonly db: CatalogDb,
    private readonly outbox: OutboxRepository,
  ) {}

  private select() {
    return this.db.selectFrom('cohorts as c').leftJoin('users as u', 'u.id', 'c.created_by_id').selectAll('c').select(CREATOR_COLUMNS);
  }

  async create(input: NewCohort): Promise<Cohort> {
    const now = nowIso();
    const row = await this.db
      .insertInto('cohorts')
      .values({
        team_id: input.teamId,
        name: input.name,
        description: input.description,
        filters: JSON.stringify(input.filters),
        groups: JSON.stringify(input.groups),
        is_static: input.isStatic ? 1 : 0,
        deleted: 0,
        created_by_id: input.createdById,
        created_at: now,
        updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return (await this.find(input.teamId, Number(row.id), { includeDeleted: true }))!;
  }

  async find(teamId: number, id: number, options: { includeDeleted?: boolean } = {}): Promise<Cohort | undefined> {
    let query = this.select().where('c.team_id', '=', teamId).where('c.id', '=', id);
    if (!options.includeDeleted) query = query.where('c.deleted', '=', 0);
    const row = await query.executeTakeFirst();
    return row && toCohort(row);
  }

  /** Live cohorts of the project, newest first (PostHog orders by -created_at). */
  async list(teamId: number, page?: { limit: number; offset: number }): Promise<{ total: number; cohorts: Cohort[] }> {
    const total = await this.db
      .selectFrom('cohorts')
      .where('team_id', '=', teamId)
      .where('deleted', '=', 0)
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    let query = this.select().where('c.team_id', '=', teamId).where('c.deleted', '=', 0).orderBy('c.created_at', 'desc').orderBy('c.id', 'desc');
    if (page) query = query.limit(page.limit).offset(page.offset);
    return { total: Number(total.n), cohorts: (await query.execute()).map(toCohort) };
  }

  async update(teamId: number, id: number, changes: CohortChanges): Promise<Cohort | undefined> {
    const values: Record<string, unknown> = { updated_at: nowIso() };
    if (changes.name !== undefined) values.name = changes.name;
    if (changes.description !== undefined) values.description = changes.description;
    if (changes.filters !== undefined) values.filters = JSON.stringify(changes.filters);
    if (changes.groups !== undefined) values.groups = JSON.stringify(changes.groups);
    if (changes.isStatic !== undefined) values.is_static = changes.isStatic ? 1 : 0;
    if (changes.deleted !== undefined) values.deleted = changes.deleted ? 1 : 0;
    await this.db.updateTable('cohorts').set(values).where('team_id', '=', teamId).where('id', '=', id).execute();
    return this.find(teamId, id, { includeDeleted: true });
  }

  /** Adds persons to a static cohort; the warehouse replica is written through the outbox in the same transaction. */
  async addStaticMembers(teamId: number, cohortId: number, personUuids: readonly string[]): Promise<void> {
    const unique = [...new Set(personUuids)];
    if (unique.length === 0) return;
    const now = nowIso();
    await this.db.transaction().execute(async (trx) => {
      for (const part of chunks(unique, MEMBERS_PER_STATEMENT)) {
        await trx
          .insertInto('static_cohort_members')
          .values(part.map((uuid) => ({ cohort_id: cohortId, team_id: teamId, person_uuid: uuid, created_at: now })))
          .onConflict((conflict) => conflict.columns(['cohort_id', 'person_uuid']).doNothing())
          .execute();
      }
      await this.outbox.withTransaction(trx).append(unique.map((uuid) => memberReplicaEntry(teamId, cohortId, uuid)));
    });
  }
}

type CohortRow = Selectable<CohortTable> & CreatorRow;

function toCohort(row: CohortRow): Cohort {
  return {
    id: Number(row.id),
    teamId: Number(row.team_id),
    name: row.name,
    description: row.description,
    filters: parseJsonColumn<Cohort['filters']>(row.filters, { properties: { type: 'AND', values: [] } }),
    groups: parseJsonColumn<unknown[]>(row.groups, []),
    isStatic: Number(row.is_static) === 1,
    deleted: Number(row.deleted) === 1,
    createdBy: creatorOf(row),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
