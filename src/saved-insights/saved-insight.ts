import type { Creator } from '../actions/action.js';
import type { ResolvedDateRange } from '../insights/query-nodes/resolved-date-range.js';

export type JsonObject = Record<string, unknown>;

/** A computed result of an insight, as answered beside the record. */
export interface InsightResult {
  result: unknown;
  hasMore: boolean | null;
  timezone: string | null;
  resolvedDateRange: ResolvedDateRange | null;
  lastRefresh: string | null;
  isCached: boolean;
}

/** The part of a result kept in the catalog until the next refresh. */
export type KeptResult = Pick<InsightResult, 'result' | 'hasMore' | 'timezone' | 'resolvedDateRange'>;

/** An insight's place on a dashboard. */
export interface InsightTileRef {
  id: number;
  dashboardId: number;
}

export interface SavedInsight {
  id: number;
  teamId: number;
  shortId: string;
  name: string | null;
  derivedName: string | null;
  description: string;
  /** The query node as sent, or null for an insight of legacy filters. */
  query: JsonObject | null;
  /** The legacy filters as sent (`{}` for query insights). */
  filters: JsonObject;
  /** TRENDS, FUNNELS, RETENTION, PATHS, STICKINESS, LIFECYCLE, SQL or JSON. */
  kind: string;
  tags: string[];
  favorited: boolean;
  saved: boolean;
  deleted: boolean;
  createdBy: Creator | null;
  lastModifiedBy: Creator | null;
  createdAt: string;
  lastModifiedAt: string;
  updatedAt: string;
  kept: KeptResult | null;
  lastRefresh: string | null;
  /** Live tiles on live dashboards, oldest first. */
  tiles: InsightTileRef[];
}
