import type { DashboardRepository } from '../dashboards/dashboard-repository.js';
import type { DashboardTileRepository } from '../dashboards/dashboard-tile-repository.js';
import { NotFound, ValidationError } from '../errors.js';
import type { StoredKey } from '../keys/key-repository.js';
import type { Project } from '../projects/project.js';
import type { CatalogDb } from '../storage/catalog/catalog.js';
import { nowIso } from '../util/time.js';
import { insightKind } from './insight-query-node.js';
import type { InsightResults } from './insight-results.js';
import { parseSavedInsightInput } from './saved-insight-input.js';
import type { InsightListQuery } from './saved-insight-list-query.js';
import type { InsightChanges, SavedInsightRepository, StoredInsight } from './saved-insight-repository.js';
import type { InsightResult, SavedInsight } from './saved-insight.js';

export interface InsightWithResult {
  insight: SavedInsight;
  result: InsightResult;
}

export interface WriteOptions {
  /** The request comes from PostHog's MCP client (`X-PostHog-Client: mcp`). */
  mcp: boolean;
  refresh: boolean;
}

const NO_RESULT: InsightResult = { result: null, hasMore: null, timezone: null, resolvedDateRange: null, lastRefresh: null, isCached: false };

/**
 * Saved insights of a project: CRUD with PostHog's rules (soft delete, `saved` on PATCH,
 * `last_modified_at` for material changes only), their dashboards, and their results.
 */
export class SavedInsightService {
  constructor(
    private readonly db: CatalogDb,
    private readonly insights: SavedInsightRepository,
    private readonly dashboards: DashboardRepository,
    private readonly tiles: DashboardTileRepository,
    private readonly results: InsightResults,
  ) {}

  async list(project: Project, query: InsightListQuery, page: { limit: number; offset: number }, refresh: boolean) {
    const { total, insights } = await this.insights.list(project.id, query, page);
    return { total, items: await this.withResults(project, insights, refresh) };
  }

  async get(project: Project, key: string, refresh: boolean): Promise<InsightWithResult> {
    const stored = await this.insights.findByKey(project.id, key);
    if (!stored) throw new NotFound();
    return this.withResult(project, stored, refresh);
  }

  private async withResult(project: Project, stored: StoredInsight, refresh: boolean): Promise<InsightWithResult> {
    const [item] = await this.withResults(project, [stored], refresh);
    return item!;
  }

  /** The insight as just written, deleted or not. */
  private async written(project: Project, id: number, refresh: boolean): Promise<InsightWithResult> {
    const stored = await this.insights.findById(project.id, id, { includeDeleted: true });
    if (!stored) throw new NotFound();
    return this.withResult(project, stored, refresh);
  }

  /** Live insights of the project by id (for dashboard tiles), with their results. */
  async byIds(project: Project, ids: number[], refresh: boolean): Promise<Map<number, InsightWithResult>> {
    const found: StoredInsight[] = [];
    for (const id of new Set(ids)) {
      const stored = await this.insights.findById(project.id, id);
      if (stored) found.push(stored);
    }
    const items = await this.withResults(project, found, refresh);
    return new Map(items.map((item) => [item.insight.id, item]));
  }

  async create(project: Project, key: StoredKey, body: unknown, options: WriteOptions): Promise<InsightWithResult> {
    const input = parseSavedInsightInput(body, { mcp: options.mcp, creating: true });
    const dashboards = input.dashboards ?? [];
    await this.checkDashboards(project, dashboards);
    const query = input.query ?? null;
    const filters = input.filters ?? {};
    const id = await this.db.transaction().execute(async (trx) => {
      const created = await this.insights.withTransaction(trx).create({
        teamId: project.id,
        name: input.name ?? null,
        derivedName: input.derivedName ?? null,
        description: input.description ?? '',
        query,
        filters,
        kind: insightKind(query, filters),
        tags: input.tags ?? [],
        favorited: input.favorited ?? false,
        saved: input.saved ?? false,
        createdById: key.user.id,
      });
      await this.tiles.withTransaction(trx).placeInsight(project.id, created, dashboards);
      return created;
    });
    return this.written(project, id, options.refresh);
  }

  async update(project: Project, key: StoredKey, insightKey: string, body: unknown, options: WriteOptions): Promise<InsightWithResult> {
    const input = parseSavedInsightInput(body, { mcp: options.mcp, creating: false });
    // A deleted insight is found only by the PATCH that restores it.
    const stored = await this.insights.findByKey(project.id, insightKey, { includeDeleted: input.deleted === false });
    if (!stored) throw new NotFound();
    const changes: InsightChanges = {
      name: input.name,
      derivedName: input.derivedName,
      description: input.description,
      query: input.query,
      filters: input.filters,
      tags: input.tags,
      favorited: input.favorited,
      // PostHog marks every insight edited through the API as saved, unless told otherwise.
      saved: input.saved ?? true,
      deleted: input.deleted,
    };
    if (input.query !== undefined || input.filters !== undefined) {
      changes.kind = insightKind(input.query === undefined ? stored.query : input.query, input.filters ?? stored.filters);
      changes.dropKeptResult = true;
    }
    const material = [input.name, input.description, input.query, input.filters, input.tags].some((value) => value !== undefined);
    if (material) changes.modifiedById = key.user.id;
    if (input.dashboards !== undefined && input.deleted !== true) await this.checkDashboards(project, input.dashboards);
    await this.db.transaction().execute(async (trx) => {
      const tiles = this.tiles.withTransaction(trx);
      await this.insights.withTransaction(trx).update(project.id, stored.id, changes);
      if (input.deleted === true) await tiles.deleteInsightTiles(project.id, stored.id);
      else if (input.dashboards !== undefined) await tiles.placeInsight(project.id, stored.id, input.dashboards);
    });
    return this.written(project, stored.id, options.refresh);
  }

  /** Every id must be a live dashboard of the project; another project's is unknown here. */
  private async checkDashboards(project: Project, ids: number[]): Promise<void> {
    const live = await this.dashboards.liveIds(project.id, ids);
    const missing = ids.find((id) => !live.has(id));
    if (missing !== undefined) {
      throw new ValidationError('dashboards', `Invalid pk "${missing}" - object does not exist.`, 'does_not_exist');
    }
  }

  private async withResults(project: Project, stored: StoredInsight[], refresh: boolean): Promise<InsightWithResult[]> {
    const tiles = await this.tiles.tilesOfInsights(
      project.id,
      stored.map((insight) => insight.id),
    );
    const items: InsightWithResult[] = [];
    for (const row of stored) {
      const insight: SavedInsight = { ...row, tiles: tiles.get(row.id) ?? [] };
      items.push({ insight, result: await this.resultOf(project, insight, refresh) });
    }
    return items;
  }

  private async resultOf(project: Project, insight: SavedInsight, refresh: boolean): Promise<InsightResult> {
    if (!refresh) return insight.kept ? { ...insight.kept, lastRefresh: insight.lastRefresh, isCached: true } : NO_RESULT;
    const computed = await this.results.compute(project, insight);
    const lastRefresh = nowIso();
    await this.insights.keepResult(project.id, insight.id, computed, lastRefresh);
    return { ...computed, lastRefresh, isCached: false };
  }
}
