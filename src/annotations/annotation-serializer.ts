import { serializeCreator } from '../actions/creator.js';
import type { Annotation } from './annotation.js';

/** PostHog's AnnotationSerializer shape. */
export function serializeAnnotation(annotation: Annotation) {
  return {
    id: annotation.id,
    content: annotation.content,
    date_marker: annotation.dateMarker,
    creation_type: annotation.creationType,
    dashboard_item: annotation.insight?.id ?? null,
    dashboard_id: annotation.dashboard?.id ?? null,
    dashboard_name: annotation.dashboard?.name ?? null,
    insight_short_id: annotation.insight?.shortId ?? null,
    insight_name: annotation.insight?.name ?? null,
    insight_derived_name: annotation.insight?.derivedName ?? null,
    created_by: serializeCreator(annotation.createdBy),
    created_at: annotation.createdAt,
    updated_at: annotation.updatedAt,
    deleted: annotation.deleted,
    scope: annotation.scope,
  };
}
