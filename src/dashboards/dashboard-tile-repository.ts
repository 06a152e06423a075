import type { CatalogDb, CatalogTransaction } from '../storage/catalog/catalog.js';
import { parseJsonColumn } from '../util/json.js';
import { nowIso } from '../util/time.js';
import type { DashboardTile, JsonObject } from './dashboard.js';

export interface TileChanges {
  color?: string | null;
  layouts?: JsonObject;
  textBody?: string | null;
}

/**
 * Catalog SQL for dashboard tiles and their texts. A tile is soft-deleted, so an insight put
 * back on a dashboard gets its tile (and layout) back. Every query is scoped to a project.
 */
export class DashboardTileRepository {
  constructor(private readonly db: CatalogDb) {}

  withTransaction(trx: CatalogTransaction): DashboardTileRepository {
    return new DashboardTileRepository(trx);
  }

  /** Each insight's live tiles on live dashboards, oldest first. */
  async tilesOfInsights(teamId: number, insightIds: number[]): Promise<Map<number, Array<{ id: number; dashboardId: number }>>> {
    const tiles = new Map<number, Array<{ id: number; dashboardId: number }>>();
    if (insightIds.length === 0) return tiles;
    const rows = await this.db
      .selectFrom('dashboard_tiles as t')
      .innerJoin('dashboards as d', 'd.id', 't.dashboard_id')
      .select(['t.id', 't.dashboard_id', 't.insight_id'])
      .where('t.team_id', '=', teamId)
      .where('t.insight_id', 'in', insightIds)
      .where('t.deleted', '=', 0)
      .where('d.deleted', '=', 0)
      .orderBy('t.id')
      .execute();
    for (const row of rows) {
      const insightId = Number(row.insight_id);
      const list = tiles.get(insightId) ?? [];
      list.push({ id: Number(row.id), dashboardId: Number(row.dashboard_id) });
      tiles.set(insightId, list);
    }
    return tiles;
  }

  /** Puts the insight on exactly these dashboards: new tiles (or revived ones) and removed ones. */
  async placeInsight(teamId: number, insightId: number, dashboardIds: number[]): Promise<void> {
    const existing = await this.db
      .selectFrom('dashboard_tiles')
      .select(['id', 'dashboard_id', 'deleted'])
      .where('team_id', '=', teamId)
      .where('insight_id', '=', insightId)
      .execute();
    const wanted = new Set(dashboardIds);
    for (const tile of existing) {
      const keep = wanted.has(Number(tile.dashboard_id));
      if (keep === (Number(tile.deleted) === 0)) continue;
      await this.db
        .updateTable('dashboard_tiles')
        .set({ deleted: keep ? 0 : 1 })
        .where('id', '=', tile.id)
        .execute();
    }
    const known = new Set(existing.map((tile) => Number(tile.dashboard_id)));
    for (const dashboardId of wanted) {
      if (known.has(dashboardId)) continue;
      await this.db
        .insertInto('dashboard_tiles')
        .values({
          team_id: teamId,
          dashboard_id: dashboardId,
          insight_id: insightId,
          text_id: null,
          color: null,
          layouts: '{}',
          deleted: 0,
          created_at: nowIso(),
        })
        .execute();
    }
  }

  async deleteInsightTiles(teamId: number, insightId: number): Promise<void> {
    await this.db.updateTable('dashboard_tiles').set({ deleted: 1 }).where('team_id', '=', teamId).where('insight_id', '=', insightId).execute();
  }

  /** Live tiles of a dashboard in creation order; a tile of a deleted insight is not shown. */
  async tilesOfDashboard(teamId: number, dashboardId: number): Promise<DashboardTile[]> {
    const rows = await this.db
      .selectFrom('dashboard_tiles as t')
      .leftJoin('insights as i', 'i.id', 't.insight_id')
      .leftJoin('dashboard_texts as x', 'x.id', 't.text_id')
      .select(['t.id', 't.dashboard_id', 't.insight_id', 't.text_id', 't.color', 't.layouts', 'x.body as text_body'])
      .where('t.team_id', '=', teamId)
      .where('t.dashboard_id', '=', dashboardId)
      .where('t.deleted', '=', 0)
      .where((eb) => eb.or([eb('t.insight_id', 'is', null), eb('i.deleted', '=', 0)]))
      .orderBy('t.id')
      .execute();
    return rows.map((row) => ({
      id: Number(row.id),
      dashboardId: Number(row.dashboard_id),
      insightId: row.insight_id === null ? null : Number(row.insight_id),
      text: row.text_id === null ? null : { id: Number(row.text_id), body: row.text_body ?? null },
      color: row.color,
      layouts: parseJsonColumn<JsonObject>(row.layouts, {}),
    }));
  }

  async addTextTile(
    teamId: number,
    dashboardId: number,
    text: { body: string | null; color: string | null; layouts: JsonObject; createdById: number },
  ): Promise<void> {
    const now = nowIso();
    const created = await this.db
      .insertInto('dashboard_texts')
      .values({ team_id: teamId, body: text.body, created_by_id: text.createdById, created_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    await this.db
      .insertInto('dashboard_tiles')
      .values({
        team_id: teamId,
        dashboard_id: dashboardId,
        insight_id: null,
        text_id: Number(created.id),
        color: text.color,
        layouts: JSON.stringify(text.layouts),
        deleted: 0,
        created_at: now,
      })
      .execute();
  }

  /** Changes a live tile of the dashboard; false when it has no such tile. */
  async updateTile(teamId: number, dashboardId: number, tileId: number, changes: TileChanges & { deleted?: boolean }): Promise<boolean> {
    const tile = await this.db
      .selectFrom('dashboard_tiles')
      .select(['id', 'text_id'])
      .where('team_id', '=', teamId)
      .where('dashboard_id', '=', dashboardId)
      .where('id', '=', tileId)
      .where('deleted', '=', 0)
      .executeTakeFirst();
    if (!tile) return false;
    const values: Record<string, unknown> = {};
    if (changes.color !== undefined) values.color = changes.color;
    if (changes.layouts !== undefined) values.layouts = JSON.stringify(changes.layouts);
    if (changes.deleted !== undefined) values.deleted = changes.deleted ? 1 : 0;
    if (Object.keys(values).length > 0) await this.db.updateTable('dashboard_tiles').set(values).where('id', '=', tileId).execute();
    if (changes.textBody !== undefined && tile.text_id !== null) {
      await this.db.updateTable('dashboard_texts').set({ body: changes.textBody }).where('id', '=', tile.text_id).execute();
    }
    return true;
  }

  /** Soft-deletes or revives every tile of a dashboard, as the dashboard is deleted or restored. */
  async setDashboardTilesDeleted(teamId: number, dashboardId: number, deleted: boolean): Promise<void> {
    await this.db
      .updateTable('dashboard_tiles')
      .set({ deleted: deleted ? 1 : 0 })
      .where('team_id', '=', teamId)
      .where('dashboard_id', '=', dashboardId)
      .execute();
  }
}
