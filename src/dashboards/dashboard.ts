import type { Creator } from '../actions/action.js';

export type JsonObject = Record<string, unknown>;

export interface Dashboard {
  id: number;
  teamId: number;
  name: string | null;
  description: string;
  pinned: boolean;
  tags: string[];
  filters: JsonObject;
  variables: JsonObject;
  deleted: boolean;
  createdBy: Creator | null;
  createdAt: string;
  lastAccessedAt: string | null;
  lastRefresh: string | null;
}

/** A tile of a dashboard: an insight (by id) or a text. */
export interface DashboardTile {
  id: number;
  dashboardId: number;
  insightId: number | null;
  text: { id: number; body: string | null } | null;
  color: string | null;
  layouts: JsonObject;
}
