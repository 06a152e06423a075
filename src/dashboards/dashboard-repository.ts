import { sql, type Selectable } from 'kysely';
import { CREATOR_COLUMNS, creatorOf, type CreatorRow } from '../actions/creator.js';
import { byteOrdered } from '../definitions/name-sql.js';
import type { CatalogDb, CatalogTransaction } from '../storage/catalog/catalog.js';
import type { CatalogDialect } from '../storage/catalog/dialect.js';
import type { DashboardTable } from '../storage/catalog/schema.js';
import { parseJsonColumn } from '../util/json.js';
import { nowIso } from '../util/time.js';
import type { Dashboard, JsonObject } from './dashboard.js';
import type { DashboardInput } from './dashboard-input.js';

export interface NewDashboard {
  teamId: number;
  name: string | null;
  description: string;
  pinned: boolean;
  tags: string[];
  filters: JsonObject;
  variables: JsonObject;
  createdById: number;
}

/** What an update changes: the writable fields of a request but its tiles, and the access and refresh times. */
export interface DashboardChanges extends Omit<DashboardInput, 'tiles'> {
  lastAccessedAt?: string;
  lastRefresh?: string;
}

/** Catalog SQL for dashboards; every read is scoped to a project. */
export class DashboardRepository {
  constructor(
    private readonly db: CatalogDb,
    private readonly dialect: CatalogDialect,
  ) {}

  withTransaction(trx: CatalogTransaction): DashboardRepository {
    return new DashboardRepository(trx, this.dialect);
  }

  private select() {
    return this.db.selectFrom('dashboards as d').leftJoin('users as u', 'u.id', 'd.created_by_id').selectAll('d').select(CREATOR_COLUMNS);
  }

  async create(input: NewDashboard): Promise<number> {
    const row = await this.db
      .insertInto('dashboards')
      .values({
        team_id: input.teamId,
        name: input.name,
        description: input.description,
        pinned: input.pinned ? 1 : 0,
        tags: JSON.stringify(input.tags),
        filters: JSON.stringify(input.filters),
        variables: JSON.stringify(input.variables),
        deleted: 0,
        created_by_id: input.createdById,
        created_at: nowIso(),
        last_accessed_at: null,
        last_refresh: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return Number(row.id);
  }

  async find(teamId: number, id: number, options: { includeDeleted?: boolean } = {}): Promise<Dashboard | undefined> {
    let query = this.select().where('d.team_id', '=', teamId).where('d.id', '=', id);
    if (!options.includeDeleted) query = query.where('d.deleted', '=', 0);
    const row = await query.executeTakeFirst();
    return row && toDashboard(row);
  }

  /** Live dashboards, pinned first, then by name (code-point order on both catalogs), then id. */
  async list(teamId: number, page: { limit: number; offset: number }): Promise<{ total: number; dashboards: Dashboard[] }> {
    const total = await this.db
      .selectFrom('dashboards')
      .where('team_id', '=', teamId)
      .where('deleted', '=', 0)
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    const rows = await this.select()
      .where('d.team_id', '=', teamId)
      .where('d.deleted', '=', 0)
      .orderBy('d.pinned', 'desc')
      // Unnamed dashboards last on both catalogs (SQLite would put NULL first).
      .orderBy(sql`d.name is null`)
      .orderBy(byteOrdered(this.dialect, 'd.name'))
      .orderBy('d.id')
      .limit(page.limit)
      .offset(page.offset)
      .execute();
    return { total: Number(total.n), dashboards: rows.map(toDashboard) };
  }

  /** The ids among `ids` of live dashboards of the project. */
  async liveIds(teamId: number, ids: number[]): Promise<Set<number>> {
    if (ids.length === 0) return new Set();
    const rows = await this.db.selectFrom('dashboards').select('id').where('team_id', '=', teamId).where('id', 'in', ids).where('deleted', '=', 0).execute();
    return new Set(rows.map((row) => Number(row.id)));
  }

  async update(teamId: number, id: number, changes: DashboardChanges): Promise<void> {
    const values: Record<string, unknown> = {};
    if (changes.name !== undefined) values.name = changes.name;
    if (changes.description !== undefined) values.description = changes.description;
    if (changes.pinned !== undefined) values.pinned = changes.pinned ? 1 : 0;
    if (changes.tags !== undefined) values.tags = JSON.stringify(changes.tags);
    if (changes.filters !== undefined) values.filters = JSON.stringify(changes.filters);
    if (changes.variables !== undefined) values.variables = JSON.stringify(changes.variables);
    if (changes.deleted !== undefined) values.deleted = changes.deleted ? 1 : 0;
    if (changes.lastAccessedAt !== undefined) values.last_accessed_at = changes.lastAccessedAt;
    if (changes.lastRefresh !== undefined) values.last_refresh = changes.lastRefresh;
    if (Object.keys(values).length === 0) return;
    await this.db.updateTable('dashboards').set(values).where('team_id', '=', teamId).where('id', '=', id).execute();
  }
}

type DashboardRow = Selectable<DashboardTable> & CreatorRow;

function toDashboard(row: DashboardRow): Dashboard {
  return {
    id: Number(row.id),
    teamId: Number(row.team_id),
    name: row.name,
    description: row.description,
    pinned: Number(row.pinned) === 1,
    tags: parseJsonColumn<string[]>(row.tags, []),
    filters: parseJsonColumn<JsonObject>(row.filters, {}),
    variables: parseJsonColumn<JsonObject>(row.variables, {}),
    deleted: Number(row.deleted) === 1,
    createdBy: creatorOf(row),
    createdAt: row.created_at,
    lastAccessedAt: row.last_accessed_at,
    lastRefresh: row.last_refresh,
  };
}
