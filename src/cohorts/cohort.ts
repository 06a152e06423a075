import type { Creator } from '../actions/action.js';

export interface Cohort {
  id: number;
  teamId: number;
  name: string | null;
  description: string;
  /** `{properties: <group>}` as validated; parse with parseCohortFilters to query. */
  filters: { properties: Record<string, unknown> };
  /** The legacy groups as sent, or []. */
  groups: unknown[];
  isStatic: boolean;
  deleted: boolean;
  createdBy: Creator | null;
  createdAt: string;
  updatedAt: string;
}

/** A static cohort has no definition; this empty one keeps `filters` well-formed. */
export const EMPTY_FILTERS = { properties: { type: 'AND', values: [] } };
