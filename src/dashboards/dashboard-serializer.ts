import { serializeCreator } from '../actions/creator.js';
import { PRIVILEGE_LEVEL, RESTRICTION_LEVEL, serializeInsight } from '../saved-insights/saved-insight-serializer.js';
import type { Dashboard } from './dashboard.js';
import type { DashboardWithTiles } from './dashboard-service.js';

/** PostHog's dashboard fields without tiles: the list's shape. */
export function serializeDashboardBasic(dashboard: Dashboard) {
  return {
    id: dashboard.id,
    name: dashboard.name,
    description: dashboard.description,
    pinned: dashboard.pinned,
    created_at: dashboard.createdAt,
    created_by: serializeCreator(dashboard.createdBy),
    last_accessed_at: dashboard.lastAccessedAt,
    is_shared: false,
    deleted: dashboard.deleted,
    creation_mode: 'default',
    filters: dashboard.filters,
    variables: dashboard.variables,
    tags: dashboard.tags,
    restriction_level: RESTRICTION_LEVEL,
    effective_restriction_level: RESTRICTION_LEVEL,
    effective_privilege_level: PRIVILEGE_LEVEL,
    last_refresh: dashboard.lastRefresh,
    team_id: dashboard.teamId,
  };
}

/** A dashboard with its tiles in creation order; an insight tile carries the insight's record. */
export function serializeDashboard({ dashboard, tiles }: DashboardWithTiles) {
  return {
    ...serializeDashboardBasic(dashboard),
    tiles: tiles.map(({ tile, insight }, order) => {
      const record = insight ? serializeInsight(insight) : null;
      return {
        id: tile.id,
        insight: record,
        text: tile.text,
        color: tile.color,
        layouts: tile.layouts,
        order,
        last_refresh: record?.last_refresh ?? null,
        is_cached: record?.is_cached ?? false,
      };
    }),
  };
}
