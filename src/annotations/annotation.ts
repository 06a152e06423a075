import type { Creator } from '../actions/action.js';

/** Where an annotation shows: PostHog's scopes (`dashboard_item` is an insight). */
export const ANNOTATION_SCOPES = ['project', 'organization', 'dashboard', 'dashboard_item'] as const;
export type AnnotationScope = (typeof ANNOTATION_SCOPES)[number];

export const CREATION_TYPES = ['USR', 'GIT'] as const;
export type CreationType = (typeof CREATION_TYPES)[number];

export interface Annotation {
  id: number;
  teamId: number;
  content: string | null;
  dateMarker: string | null;
  creationType: CreationType;
  scope: AnnotationScope;
  insight: { id: number; shortId: string; name: string | null; derivedName: string | null } | null;
  dashboard: { id: number; name: string | null } | null;
  deleted: boolean;
  createdBy: Creator | null;
  createdAt: string;
  updatedAt: string;
}
