import { ValidationError } from '../errors.js';
import { textOf } from '../util/text.js';
import type { AnnotationScope } from './annotation.js';
import { parseInstant, parseScope } from './annotation-input.js';

/** The annotation list's filters, from its query string. */
export interface AnnotationListQuery {
  scope: AnnotationScope | null;
  /** Words that must all be in the content (case-insensitive), as DRF's SearchFilter splits them. */
  searchTerms: string[];
  /** Inclusive bounds on date_marker, ISO UTC. */
  dateFrom: string | null;
  dateTo: string | null;
}

export function parseAnnotationListQuery(query: Record<string, unknown>): AnnotationListQuery {
  const present = (value: unknown) => value !== undefined && value !== '';
  const dateFrom = present(query.date_from) ? parseInstant(query.date_from, 'date_from') : null;
  const dateTo = present(query.date_to) ? parseInstant(query.date_to, 'date_to') : null;
  if (dateFrom !== null && dateTo !== null && dateFrom > dateTo) {
    throw new ValidationError('date_from', 'Invalid date range: date_from must be before date_to');
  }
  return {
    scope: present(query.scope) ? parseScope(query.scope, 'scope') : null,
    searchTerms: present(query.search)
      ? textOf(query.search)
          .split(/[\s,]+/)
          .filter(Boolean)
      : [],
    dateFrom,
    dateTo,
  };
}
