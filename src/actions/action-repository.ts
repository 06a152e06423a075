import type { Selectable } from 'kysely';
import type { CatalogDb } from '../storage/catalog/catalog.js';
import type { ActionTable } from '../storage/catalog/schema.js';
import { parseJsonColumn } from '../util/json.js';
import { nowIso } from '../util/time.js';
import type { Action, ActionStep } from './action.js';
import { CREATOR_COLUMNS, creatorOf, type CreatorRow } from './creator.js';

export interface NewAction {
  teamId: number;
  name: string | null;
  description: string;
  steps: ActionStep[];
  createdById: number | null;
}

export interface ActionChanges {
  name?: string | null;
  description?: string;
  steps?: ActionStep[];
  deleted?: boolean;
}

/** Catalog SQL for actions; every read is scoped to a project. */
export class ActionRepository {
  constructor(private readonly db: CatalogDb) {}

  private select() {
    return this.db.selectFrom('actions as a').leftJoin('users as u', 'u.id', 'a.created_by_id').selectAll('a').select(CREATOR_COLUMNS);
  }

  async create(input: NewAction): Promise<Action> {
    const now = nowIso();
    const row = await this.db
      .insertInto('actions')
      .values({
        team_id: input.teamId,
        name: input.name,
        description: input.description,
        steps: JSON.stringify(input.steps),
        deleted: 0,
        created_by_id: input.createdById,
        created_at: now,
        updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return (await this.find(input.teamId, Number(row.id), { includeDeleted: true }))!;
  }

  async find(teamId: number, id: number, options: { includeDeleted?: boolean } = {}): Promise<Action | undefined> {
    let query = this.select().where('a.team_id', '=', teamId).where('a.id', '=', id);
    if (!options.includeDeleted) query = query.where('a.deleted', '=', 0);
    const row = await query.executeTakeFirst();
    return row && toAction(row);
  }

  async list(teamId: number, page: { limit: number; offset: number }): Promise<{ total: number; actions: Action[] }> {
    const live = this.db.selectFrom('actions').where('team_id', '=', teamId).where('deleted', '=', 0);
    const total = await live.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    const rows = await this.select()
      .where('a.team_id', '=', teamId)
      .where('a.deleted', '=', 0)
      .orderBy('a.id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute();
    return { total: Number(total.n), actions: rows.map(toAction) };
  }

  async update(teamId: number, id: number, changes: ActionChanges): Promise<Action | undefined> {
    const values: Record<string, unknown> = { updated_at: nowIso() };
    if (changes.name !== undefined) values.name = changes.name;
    if (changes.description !== undefined) values.description = changes.description;
    if (changes.steps !== undefined) values.steps = JSON.stringify(changes.steps);
    if (changes.deleted !== undefined) values.deleted = changes.deleted ? 1 : 0;
    await this.db.updateTable('actions').set(values).where('team_id', '=', teamId).where('id', '=', id).execute();
    return this.find(teamId, id, { includeDeleted: true });
  }
}

type ActionRow = Selectable<ActionTable> & CreatorRow;

function toAction(row: ActionRow): Action {
  return {
    id: Number(row.id),
    teamId: Number(row.team_id),
    name: row.name,
    description: row.description,
    steps: parseJsonColumn<ActionStep[]>(row.steps, []),
    deleted: Number(row.deleted) === 1,
    createdBy: creatorOf(row),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
