import type { DateTime } from 'luxon';
import type { Project } from '../../projects/project.js';
import type { CorrelationFilter } from '../funnels/correlation-filter.js';
import type { CorrelationResult, CorrelationRow, CorrelationRunner, CorrelationSubject } from '../funnels/correlation-runner.js';
import { funnelErrorInQuery } from './funnels-query.js';

/**
 * A FunnelCorrelationQuery's answer: PostHog's `{events, skewed}` results (the legacy endpoint's
 * rows without their persons URLs) and the columns of the contingency table they come from.
 */

export interface FunnelCorrelationResponse {
  results: { events: object[]; skewed: boolean };
  columns: string[];
  types: Array<[string, string]>;
  hasMore: boolean;
  limit: null;
  offset: null;
}

function rowName(subject: CorrelationSubject): string {
  switch (subject.kind) {
    case 'event':
      return subject.event;
    case 'event_property':
      return `${subject.event}::${subject.property}::${subject.value}`;
    case 'property':
      return `${subject.property}::${subject.value}`;
  }
}

function row(item: CorrelationRow): object {
  return {
    event: { event: rowName(item.subject), properties: {}, elements: [] },
    success_count: item.visited.success,
    failure_count: item.visited.failure,
    odds_ratio: item.oddsRatio,
    correlation_type: item.correlationType,
  };
}

/** The runner's typed result as the query API answers it; every row is answered, so there is no page to ask for. */
export function funnelCorrelationResponse(result: CorrelationResult): FunnelCorrelationResponse {
  return {
    results: { events: result.rows.map(row), skewed: result.skewed },
    columns: ['name', 'success_count', 'failure_count'],
    types: [
      ['name', 'String'],
      ['success_count', 'UInt64'],
      ['failure_count', 'UInt64'],
    ],
    hasMore: false,
    limit: null,
    offset: null,
  };
}

/**
 * Computes a translated FunnelCorrelationQuery (at `path`) with the correlation runner; errors
 * of its funnel name the FunnelsQuery's fields.
 */
export async function runFunnelCorrelationQuery(
  correlation: CorrelationRunner,
  project: Project,
  filter: CorrelationFilter,
  path: string,
  now: DateTime,
): Promise<FunnelCorrelationResponse> {
  try {
    return funnelCorrelationResponse(await correlation.run(project, filter, { now }));
  } catch (error) {
    throw funnelErrorInQuery(error, `${path}.source.source`);
  }
}
