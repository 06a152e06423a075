import type { InsightQueryAnswer } from '../../insights/query-nodes/insight-query-answer.js';
import type { QueryResponse } from '../query-kind.js';

/** An insight kind's answer in PostHog's response: its results and the range it read (the transport adds the cached envelope). */
export function insightResponse(answer: InsightQueryAnswer): QueryResponse {
  return { results: answer.results, resolved_date_range: answer.resolvedDateRange, timings: [], modifiers: {} };
}
