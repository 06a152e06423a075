import type { ResolvedDateRange } from './resolved-date-range.js';

/**
 * What an insight query node computes to, for the query API and for saved insights alike: the
 * kind's `results`, PostHog's `hasMore`, and the range the runner read.
 */
export interface InsightQueryAnswer<T = unknown> {
  results: T;
  hasMore: boolean;
  resolvedDateRange: ResolvedDateRange;
}
