import { serializeCreator } from '../actions/creator.js';
import { nowIso } from '../util/time.js';
import type { Cohort } from './cohort.js';
import { parseCohortFilters } from './cohort-filter-parser.js';
import type { CohortNode } from './cohort-filter-model.js';

const ANALYTICAL = new Set([
  'performed_event_first_time',
  'performed_event_regularly',
  'performed_event_sequence',
  'stopped_performing_event',
  'restarted_performing_event',
]);

function behaviours(node: CohortNode): string[] {
  if (node.kind === 'behavioral') return [node.behavior];
  return node.kind === 'group' ? node.values.flatMap(behaviours) : [];
}

/** PostHog's cohort_type, from what the definition uses. */
function cohortType(cohort: Cohort): string {
  if (cohort.isStatic) return 'static';
  const used = behaviours(parseCohortFilters(cohort.filters));
  if (used.some((behavior) => ANALYTICAL.has(behavior))) return 'analytical';
  return used.length > 0 ? 'behavioral' : 'person_property';
}

/** PostHog's CohortSerializer shape; `count` is the membership now (null when it cannot be computed). */
export function serializeCohort(cohort: Cohort, count: number | null) {
  return {
    id: cohort.id,
    name: cohort.name,
    description: cohort.description,
    groups: cohort.groups,
    deleted: cohort.deleted,
    filters: cohort.filters,
    query: null,
    is_calculating: false,
    created_by: serializeCreator(cohort.createdBy),
    created_at: cohort.createdAt,
    // Membership is computed by every query, so it is always as of now.
    last_calculation: nowIso(),
    errors_calculating: 0,
    count,
    is_static: cohort.isStatic,
    cohort_type: cohortType(cohort),
    experiment_set: [],
  };
}
