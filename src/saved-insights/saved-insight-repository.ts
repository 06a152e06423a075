import { sql, type Expression, type ExpressionBuilder, type Selectable, type SqlBool } from 'kysely';
import { CREATOR_COLUMNS, creatorOf, type CreatorRow } from '../actions/creator.js';
import { byteOrdered, containsEveryTerm } from '../definitions/name-sql.js';
import type { CatalogDb, CatalogTransaction } from '../storage/catalog/catalog.js';
import type { CatalogDialect } from '../storage/catalog/dialect.js';
import type { CatalogSchema, InsightTable } from '../storage/catalog/schema.js';
import { parseJsonColumn } from '../util/json.js';
import { randomBase62 } from '../util/random.js';
import { nowIso } from '../util/time.js';
import type { InsightListQuery } from './saved-insight-list-query.js';
import type { JsonObject, KeptResult, SavedInsight } from './saved-insight.js';

/** An insight as its row holds it: everything but its tiles. */
export type StoredInsight = Omit<SavedInsight, 'tiles'>;

export interface NewInsight {
  teamId: number;
  name: string | null;
  derivedName: string | null;
  description: string;
  query: JsonObject | null;
  filters: JsonObject;
  kind: string;
  tags: string[];
  favorited: boolean;
  saved: boolean;
  createdById: number;
}

export interface InsightChanges {
  name?: string | null;
  derivedName?: string | null;
  description?: string;
  query?: JsonObject | null;
  filters?: JsonObject;
  kind?: string;
  tags?: string[];
  favorited?: boolean;
  saved?: boolean;
  deleted?: boolean;
  /** Set when a field that defines the insight changed: name, description, query, filters or tags. */
  modifiedById?: number;
  /** A change of query or filters makes the kept result stale. */
  dropKeptResult?: boolean;
}

type InsightScope = ExpressionBuilder<CatalogSchema & { i: InsightTable }, 'i'>;

const SHORT_ID_LENGTH = 8;

/** Catalog SQL for saved insights; every read is scoped to a project. */
export class SavedInsightRepository {
  constructor(
    private readonly db: CatalogDb,
    private readonly dialect: CatalogDialect,
  ) {}

  private select() {
    return this.db
      .selectFrom('insights as i')
      .leftJoin('users as u', 'u.id', 'i.created_by_id')
      .leftJoin('users as m', 'm.id', 'i.last_modified_by_id')
      .selectAll('i')
      .select(CREATOR_COLUMNS)
      .select(['m.uuid as modifier_uuid', 'm.email as modifier_email', 'm.first_name as modifier_first_name']);
  }

  withTransaction(trx: CatalogTransaction): SavedInsightRepository {
    return new SavedInsightRepository(trx, this.dialect);
  }

  private async unusedShortId(): Promise<string> {
    for (;;) {
      const candidate = randomBase62(SHORT_ID_LENGTH);
      const taken = await this.db.selectFrom('insights').select('id').where('short_id', '=', candidate).executeTakeFirst();
      if (!taken) return candidate;
    }
  }

  async create(input: NewInsight): Promise<number> {
    const now = nowIso();
    const row = await this.db
      .insertInto('insights')
      .values({
        team_id: input.teamId,
        short_id: await this.unusedShortId(),
        name: input.name,
        derived_name: input.derivedName,
        description: input.description,
        query: input.query === null ? null : JSON.stringify(input.query),
        filters: JSON.stringify(input.filters),
        kind: input.kind,
        tags: JSON.stringify(input.tags),
        favorited: input.favorited ? 1 : 0,
        saved: input.saved ? 1 : 0,
        deleted: 0,
        created_by_id: input.createdById,
        last_modified_by_id: input.createdById,
        created_at: now,
        last_modified_at: now,
        updated_at: now,
        kept_result: null,
        last_refresh: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return Number(row.id);
  }

  async findById(teamId: number, id: number, options: { includeDeleted?: boolean } = {}): Promise<StoredInsight | undefined> {
    let query = this.select().where('i.team_id', '=', teamId).where('i.id', '=', id);
    if (!options.includeDeleted) query = query.where('i.deleted', '=', 0);
    const row = await query.executeTakeFirst();
    return row && toInsight(row);
  }

  /** By integer id, else by short_id (a numeric text that is no id may still be a short_id). */
  async findByKey(teamId: number, key: string, options: { includeDeleted?: boolean } = {}): Promise<StoredInsight | undefined> {
    if (/^\d{1,15}$/.test(key)) {
      const byId = await this.findById(teamId, Number(key), options);
      if (byId) return byId;
    }
    let query = this.select().where('i.team_id', '=', teamId).where('i.short_id', '=', key);
    if (!options.includeDeleted) query = query.where('i.deleted', '=', 0);
    const row = await query.executeTakeFirst();
    return row && toInsight(row);
  }

  /** The ids among `ids` of live insights of the project. */
  async liveIds(teamId: number, ids: number[]): Promise<Set<number>> {
    if (ids.length === 0) return new Set();
    const rows = await this.db.selectFrom('insights').select('id').where('team_id', '=', teamId).where('id', 'in', ids).where('deleted', '=', 0).execute();
    return new Set(rows.map((row) => Number(row.id)));
  }

  async list(teamId: number, filter: InsightListQuery, page: { limit: number; offset: number }): Promise<{ total: number; insights: StoredInsight[] }> {
    const where = (eb: InsightScope) => eb.and(listConditions(eb, teamId, filter));
    const total = await this.db
      .selectFrom('insights as i')
      .where(where)
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    let query = this.select().where(where);
    const order = filter.order ?? { column: 'last_modified_at', descending: true };
    const direction = order.descending ? 'desc' : 'asc';
    if (order.column === 'name') {
      // PostgreSQL's NULL placement (last ascending, first descending) on both catalogs.
      query = query.orderBy(sql`i.name is null`, direction).orderBy(byteOrdered(this.dialect, 'i.name'), direction);
    } else if (order.column !== 'id') {
      query = query.orderBy(`i.${order.column}`, direction);
    }
    const rows = await query.orderBy('i.id', direction).limit(page.limit).offset(page.offset).execute();
    return { total: Number(total.n), insights: rows.map(toInsight) };
  }

  async update(teamId: number, id: number, changes: InsightChanges): Promise<void> {
    const now = nowIso();
    const values: Record<string, unknown> = { updated_at: now };
    if (changes.name !== undefined) values.name = changes.name;
    if (changes.derivedName !== undefined) values.derived_name = changes.derivedName;
    if (changes.description !== undefined) values.description = changes.description;
    if (changes.query !== undefined) values.query = changes.query === null ? null : JSON.stringify(changes.query);
    if (changes.filters !== undefined) values.filters = JSON.stringify(changes.filters);
    if (changes.kind !== undefined) values.kind = changes.kind;
    if (changes.tags !== undefined) values.tags = JSON.stringify(changes.tags);
    if (changes.favorited !== undefined) values.favorited = changes.favorited ? 1 : 0;
    if (changes.saved !== undefined) values.saved = changes.saved ? 1 : 0;
    if (changes.deleted !== undefined) values.deleted = changes.deleted ? 1 : 0;
    if (changes.modifiedById !== undefined) {
      values.last_modified_at = now;
      values.last_modified_by_id = changes.modifiedById;
    }
    if (changes.dropKeptResult) {
      values.kept_result = null;
      values.last_refresh = null;
    }
    await this.db.updateTable('insights').set(values).where('team_id', '=', teamId).where('id', '=', id).execute();
  }

  /** Keeps a computed result; it is not a change of the insight (updated_at stays). */
  async keepResult(teamId: number, id: number, kept: KeptResult, lastRefresh: string): Promise<void> {
    await this.db
      .updateTable('insights')
      .set({ kept_result: JSON.stringify(kept), last_refresh: lastRefresh })
      .where('team_id', '=', teamId)
      .where('id', '=', id)
      .execute();
  }
}

function listConditions(eb: InsightScope, teamId: number, filter: InsightListQuery): Expression<SqlBool>[] {
  const conditions: Expression<SqlBool>[] = [eb('i.team_id', '=', teamId), eb('i.deleted', '=', 0)];
  const liveTile = (dashboardId?: number) => {
    let tiles = eb
      .selectFrom('dashboard_tiles as t')
      .innerJoin('dashboards as d', 'd.id', 't.dashboard_id')
      .select('t.id')
      .whereRef('t.insight_id', '=', 'i.id')
      .where('t.deleted', '=', 0)
      .where('d.deleted', '=', 0);
    if (dashboardId !== undefined) tiles = tiles.where('t.dashboard_id', '=', dashboardId);
    return eb.exists(tiles);
  };
  if (filter.shortId !== null) conditions.push(eb('i.short_id', '=', filter.shortId));
  if (filter.search !== null) {
    const terms = [filter.search];
    conditions.push(eb.or([containsEveryTerm('i.name', terms), containsEveryTerm('i.derived_name', terms), containsEveryTerm('i.description', terms)]));
  }
  if (filter.saved === true) conditions.push(eb.or([eb('i.saved', '=', 1), liveTile()]));
  if (filter.saved === false) conditions.push(eb('i.saved', '=', 0));
  if (filter.favorited !== null) conditions.push(eb('i.favorited', '=', filter.favorited ? 1 : 0));
  for (const dashboardId of filter.dashboards) conditions.push(liveTile(dashboardId));
  if (filter.createdBy.length > 0) conditions.push(eb('i.created_by_id', 'in', filter.createdBy));
  if (filter.kind !== null) conditions.push(eb('i.kind', '=', filter.kind));
  return conditions;
}

type InsightRow = Selectable<InsightTable> & CreatorRow & { modifier_uuid: string | null; modifier_email: string | null; modifier_first_name: string | null };

function toInsight(row: InsightRow): StoredInsight {
  return {
    id: Number(row.id),
    teamId: Number(row.team_id),
    shortId: row.short_id,
    name: row.name,
    derivedName: row.derived_name,
    description: row.description,
    query: parseJsonColumn<JsonObject | null>(row.query, null),
    filters: parseJsonColumn<JsonObject>(row.filters, {}),
    kind: row.kind,
    tags: parseJsonColumn<string[]>(row.tags, []),
    favorited: Number(row.favorited) === 1,
    saved: Number(row.saved) === 1,
    deleted: Number(row.deleted) === 1,
    createdBy: creatorOf(row),
    lastModifiedBy:
      row.last_modified_by_id === null || row.modifier_uuid === null
        ? null
        : { id: Number(row.last_modified_by_id), uuid: row.modifier_uuid, email: row.modifier_email ?? '', firstName: row.modifier_first_name ?? '' },
    createdAt: row.created_at,
    lastModifiedAt: row.last_modified_at,
    updatedAt: row.updated_at,
    kept: parseJsonColumn<KeptResult | null>(row.kept_result, null),
    lastRefresh: row.last_refresh,
  };
}
