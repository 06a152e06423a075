import { AnnotationRepository } from '../annotations/annotation-repository.js';
import { AnnotationService } from '../annotations/annotation-service.js';
import { DashboardRepository } from '../dashboards/dashboard-repository.js';
import { DashboardService } from '../dashboards/dashboard-service.js';
import { DashboardTileRepository } from '../dashboards/dashboard-tile-repository.js';
import type { TrendService } from '../insights/trends/trend-service.js';
import type { Catalog } from '../storage/catalog/catalog.js';
import type { Warehouse } from '../storage/warehouse/warehouse.js';
import { InsightResults, type InsightRunners } from './insight-results.js';
import { SavedInsightRepository } from './saved-insight-repository.js';
import { SavedInsightService } from './saved-insight-service.js';

export interface SavedInsightsApi {
  savedInsights: SavedInsightService;
  dashboards: DashboardService;
  annotations: AnnotationService;
}

/** Saved insights, dashboards and annotations share their repositories; results come from the legacy endpoints' runners. */
export function createSavedInsightsApi(catalog: Catalog, warehouse: Warehouse, trends: TrendService, runners: InsightRunners): SavedInsightsApi {
  const insightRepository = new SavedInsightRepository(catalog.db, catalog.dialect);
  const dashboardRepository = new DashboardRepository(catalog.db, catalog.dialect);
  const tiles = new DashboardTileRepository(catalog.db);
  const savedInsights = new SavedInsightService(catalog.db, insightRepository, dashboardRepository, tiles, new InsightResults(trends, warehouse, runners));
  return {
    savedInsights,
    dashboards: new DashboardService(catalog.db, dashboardRepository, tiles, savedInsights),
    annotations: new AnnotationService(new AnnotationRepository(catalog.db), insightRepository, dashboardRepository),
  };
}
