import { DateTime } from 'luxon';
import { ValidationError } from '../errors.js';
import { parseInsightFilter, type InsightFilter } from '../insights/filter-model.js';
import { resolvedDateRange } from '../insights/query-nodes/resolved-date-range.js';
import { trendsQueryToFilter } from '../insights/query-nodes/trends-query.js';
import { hasOtherBucket, runTrendsQuery } from '../insights/query-nodes/trends-query-results.js';
import type { TrendService } from '../insights/trends/trend-service.js';
import type { SeriesItem } from '../insights/trends/trend-series.js';
import type { Project } from '../projects/project.js';
import type { Warehouse } from '../storage/warehouse/warehouse.js';
import { textOf } from '../util/text.js';
import { computingNode } from './insight-query-node.js';
import type { KeptResult, SavedInsight } from './saved-insight.js';

/** `refresh` values that compute now (Tally computes every one of them synchronously). */
const COMPUTING_MODES = new Set(['true', 'blocking', 'force_blocking', 'async', 'force_async', 'lazy_async']);
/** `refresh` values that answer what was computed before, if anything. */
const CACHED_MODES = new Set(['false', 'force_cache']);

/** Whether the `refresh` query parameter asks for results to be computed now. */
export function refreshRequested(value: unknown): boolean {
  if (value === undefined || value === '') return false;
  const mode = textOf(value);
  if (COMPUTING_MODES.has(mode)) return true;
  if (CACHED_MODES.has(mode)) return false;
  throw new ValidationError(
    'refresh',
    `"${mode}" is not a valid refresh mode: use one of ${[...COMPUTING_MODES, ...CACHED_MODES].join(', ')}.`,
    'invalid_choice',
  );
}

function cannotCompute(kind: string): never {
  throw new ValidationError(
    'refresh',
    `Tally cannot compute ${kind} insights yet: only trends (a TrendsQuery, or legacy filters of insight TRENDS) are computed.`,
  );
}

/** A legacy filter error, named at its place in the insight's `filters`. */
function inFilters(error: unknown): unknown {
  if (!(error instanceof ValidationError)) return error;
  return new ValidationError(error.attr === null ? 'filters' : `filters.${error.attr}`, error.detail, error.code);
}

/**
 * Computes saved insights: legacy trend filters through the trend endpoint's runner, and
 * TrendsQuery nodes translated to the same filter, so the numbers are those of
 * `/insights/trend/`. Other kinds are refused until Tally has runners for them.
 */
export class InsightResults {
  constructor(
    private readonly trends: TrendService,
    private readonly warehouse: Warehouse,
  ) {}

  async compute(project: Project, insight: Pick<SavedInsight, 'query' | 'filters'>): Promise<KeptResult> {
    const now = DateTime.now();
    let items: SeriesItem[];
    let filter: InsightFilter;
    if (insight.query !== null) {
      const { node, path } = computingNode(insight.query);
      if (node.kind !== 'TrendsQuery') cannotCompute(String(node.kind));
      const plan = trendsQueryToFilter(node, path);
      items = await runTrendsQuery(this.trends, project, plan, { now });
      filter = plan.filter;
    } else {
      const insightType = typeof insight.filters.insight === 'string' ? insight.filters.insight.toUpperCase() : 'TRENDS';
      if (insightType !== 'TRENDS') cannotCompute(insightType);
      const shownAs = insight.filters.shown_as;
      if (shownAs !== undefined && shownAs !== null && shownAs !== 'Volume') cannotCompute(textOf(shownAs).toUpperCase());
      try {
        filter = parseInsightFilter(insight.filters);
        items = await this.trends.run(project, filter, { now });
      } catch (error) {
        throw inFilters(error);
      }
    }
    return {
      result: items,
      hasMore: hasOtherBucket(items),
      timezone: project.timezone,
      resolvedDateRange: await resolvedDateRange(this.warehouse, project, filter.dates, now),
    };
  }
}
