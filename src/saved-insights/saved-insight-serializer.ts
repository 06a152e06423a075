import { serializeCreator } from '../actions/creator.js';
import type { InsightWithResult } from './saved-insight-service.js';

/** PostHog's fixed access levels: Tally has no access control, so every key may edit. */
export const RESTRICTION_LEVEL = 21;
export const PRIVILEGE_LEVEL = 37;

/** PostHog's InsightSerializer shape; `query` and `filters` are answered as stored. */
export function serializeInsight({ insight, result }: InsightWithResult) {
  return {
    id: insight.id,
    short_id: insight.shortId,
    name: insight.name,
    derived_name: insight.derivedName,
    query: insight.query,
    filters: insight.filters,
    order: null,
    deleted: insight.deleted,
    dashboards: insight.tiles.map((tile) => tile.dashboardId),
    dashboard_tiles: insight.tiles.map((tile) => ({ id: tile.id, dashboard_id: tile.dashboardId, deleted: false })),
    last_refresh: result.lastRefresh,
    result: result.result,
    hasMore: result.hasMore,
    columns: null,
    created_at: insight.createdAt,
    created_by: serializeCreator(insight.createdBy),
    description: insight.description,
    updated_at: insight.updatedAt,
    tags: insight.tags,
    favorited: insight.favorited,
    saved: insight.saved,
    last_modified_at: insight.lastModifiedAt,
    last_modified_by: serializeCreator(insight.lastModifiedBy),
    effective_restriction_level: RESTRICTION_LEVEL,
    effective_privilege_level: PRIVILEGE_LEVEL,
    user_access_level: 'editor',
    timezone: result.timezone,
    is_cached: result.isCached,
    query_status: null,
    hogql: null,
    types: null,
    resolved_date_range: result.resolvedDateRange,
    alerts: [],
  };
}

export type SerializedInsight = ReturnType<typeof serializeInsight>;
