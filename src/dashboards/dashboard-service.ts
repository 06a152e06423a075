import { NotFound, ValidationError } from '../errors.js';
import type { StoredKey } from '../keys/key-repository.js';
import type { Project } from '../projects/project.js';
import type { InsightWithResult, SavedInsightService } from '../saved-insights/saved-insight-service.js';
import type { CatalogDb } from '../storage/catalog/catalog.js';
import { nowIso } from '../util/time.js';
import type { Dashboard, DashboardTile } from './dashboard.js';
import { parseDashboardInput, type TileInput } from './dashboard-input.js';
import type { DashboardRepository } from './dashboard-repository.js';
import type { DashboardTileRepository } from './dashboard-tile-repository.js';

export interface TileWithInsight {
  tile: DashboardTile;
  insight: InsightWithResult | null;
}

export interface DashboardWithTiles {
  dashboard: Dashboard;
  tiles: TileWithInsight[];
}

/**
 * Dashboards of a project: CRUD with soft delete (tiles follow the dashboard), text tiles
 * through `tiles`, insight tiles with their insights' results (computed on `refresh`).
 */
export class DashboardService {
  constructor(
    private readonly db: CatalogDb,
    private readonly dashboards: DashboardRepository,
    private readonly tiles: DashboardTileRepository,
    private readonly insights: SavedInsightService,
  ) {}

  list(project: Project, page: { limit: number; offset: number }) {
    return this.dashboards.list(project.id, page);
  }

  /** A live dashboard, as it is looked at: `last_accessed_at` moves. */
  async get(project: Project, id: number, refresh: boolean): Promise<DashboardWithTiles> {
    return this.load(project, id, refresh, { includeDeleted: false, accessed: true });
  }

  private async load(project: Project, id: number, refresh: boolean, options: { includeDeleted: boolean; accessed: boolean }): Promise<DashboardWithTiles> {
    const dashboard = await this.dashboards.find(project.id, id, { includeDeleted: options.includeDeleted });
    if (!dashboard) throw new NotFound();
    const now = nowIso();
    const changes = { ...(options.accessed ? { lastAccessedAt: now } : {}), ...(refresh ? { lastRefresh: now } : {}) };
    const tiles = await this.withInsights(project, dashboard.id, refresh);
    await this.dashboards.update(project.id, dashboard.id, changes);
    return { dashboard: { ...dashboard, ...changes }, tiles };
  }

  async create(project: Project, key: StoredKey, body: unknown, refresh: boolean): Promise<DashboardWithTiles> {
    const input = parseDashboardInput(body);
    const id = await this.db.transaction().execute(async (trx) => {
      const created = await this.dashboards.withTransaction(trx).create({
        teamId: project.id,
        name: input.name ?? null,
        description: input.description ?? '',
        pinned: input.pinned ?? false,
        tags: input.tags ?? [],
        filters: input.filters ?? {},
        variables: input.variables ?? {},
        createdById: key.user.id,
      });
      await this.applyTiles(this.tiles.withTransaction(trx), project, key, created, input.tiles ?? []);
      return created;
    });
    return this.load(project, id, refresh, { includeDeleted: false, accessed: false });
  }

  async update(project: Project, key: StoredKey, id: number, body: unknown, refresh: boolean): Promise<DashboardWithTiles> {
    const input = parseDashboardInput(body);
    // A deleted dashboard is found only by the PATCH that restores it.
    const dashboard = await this.dashboards.find(project.id, id, { includeDeleted: input.deleted === false });
    if (!dashboard) throw new NotFound();
    await this.db.transaction().execute(async (trx) => {
      const { tiles, ...changes } = input;
      const tileRepository = this.tiles.withTransaction(trx);
      await this.dashboards.withTransaction(trx).update(project.id, id, changes);
      if (input.deleted !== undefined && input.deleted !== dashboard.deleted) {
        await tileRepository.setDashboardTilesDeleted(project.id, id, input.deleted);
      }
      await this.applyTiles(tileRepository, project, key, id, tiles ?? []);
    });
    return this.load(project, id, refresh, { includeDeleted: true, accessed: false });
  }

  /** Adds and changes tiles through `tileRepository`, bound to the caller's transaction. */
  private async applyTiles(tileRepository: DashboardTileRepository, project: Project, key: StoredKey, dashboardId: number, tiles: TileInput[]): Promise<void> {
    for (const tile of tiles) {
      if (tile.id === null) {
        await tileRepository.addTextTile(project.id, dashboardId, {
          body: tile.textBody ?? null,
          color: tile.color ?? null,
          layouts: tile.layouts ?? {},
          createdById: key.user.id,
        });
        continue;
      }
      const changed = await tileRepository.updateTile(project.id, dashboardId, tile.id, tile);
      if (!changed) throw new ValidationError('tiles', `This dashboard has no tile ${tile.id}.`, 'does_not_exist');
    }
  }

  private async withInsights(project: Project, dashboardId: number, refresh: boolean): Promise<TileWithInsight[]> {
    const tiles = await this.tiles.tilesOfDashboard(project.id, dashboardId);
    const insightIds = tiles.flatMap((tile) => (tile.insightId === null ? [] : [tile.insightId]));
    const insights = await this.insights.byIds(project, insightIds, refresh);
    return tiles.map((tile) => ({ tile, insight: tile.insightId === null ? null : (insights.get(tile.insightId) ?? null) }));
  }
}
