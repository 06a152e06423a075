import { DateTime } from 'luxon';
import { ValidationError } from '../errors.js';
import { parseInsightFilter, trendEndpointInsight, type InsightFilter } from '../insights/filter-model.js';
import { funnelsQueryToFilter } from '../insights/query-nodes/funnels-query.js';
import { runFunnelsQuery } from '../insights/query-nodes/funnels-query-results.js';
import { answerInsightNode } from '../insights/query-nodes/insight-node-answers.js';
import { resolvedDateRange } from '../insights/query-nodes/resolved-date-range.js';
import { trendsQueryToFilter } from '../insights/query-nodes/trends-query.js';
import { hasOtherBucket, runTrendsQuery } from '../insights/query-nodes/trends-query-results.js';
import type { TrendService } from '../insights/trends/trend-service.js';
import type { SeriesItem } from '../insights/trends/trend-series.js';
import type { RetentionRunner } from '../insights/retention/retention-runner.js';
import { savedRetentionResult } from '../insights/retention/retention-saved-result.js';
import type { PathRunner } from '../insights/paths/path-runner.js';
import { savedPathResult } from '../insights/paths/path-saved-result.js';
import type { FunnelRunner } from '../insights/funnels/funnel-runner.js';
import { savedFunnelResult } from '../insights/funnels/funnel-saved-result.js';
import type { LifecycleRunner } from '../insights/lifecycle/lifecycle-runner.js';
import { savedLifecycleResult } from '../insights/lifecycle/lifecycle-saved-result.js';
import type { StickinessRunner } from '../insights/stickiness/stickiness-runner.js';
import { savedStickinessResult } from '../insights/stickiness/stickiness-saved-result.js';
import type { Project } from '../projects/project.js';
import type { Warehouse } from '../storage/warehouse/warehouse.js';
import { textOf } from '../util/text.js';
import { computingNode } from './insight-query-node.js';
import type { JsonObject, KeptResult, SavedInsight } from './saved-insight.js';

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

/** The runners of the legacy kinds other than trends. */
export interface InsightRunners {
  retention: RetentionRunner;
  paths: PathRunner;
  funnels: FunnelRunner;
  lifecycle: LifecycleRunner;
  stickiness: StickinessRunner;
}

/**
 * Computes saved insights: legacy trend filters through the trend endpoint's runner, and
 * TrendsQuery nodes translated to the same filter, so the numbers are those of
 * `/insights/trend/`; legacy retention, paths and funnels filters through their endpoints' runners, and
 * lifecycle and stickiness through the trend endpoint's. Other kinds are refused until Tally has runners for them.
 */
export class InsightResults {
  constructor(
    private readonly trends: TrendService,
    private readonly warehouse: Warehouse,
    private readonly kinds: InsightRunners,
  ) {}

  /** Legacy `filters` of a kind other than trends, through the runner of its endpoint; null when it has none. */
  private computeKind(project: Project, insightType: string, filters: SavedInsight['filters'], now: DateTime): Promise<KeptResult> | null {
    const { retention, paths, funnels, lifecycle, stickiness } = this.kinds;
    // As the trend endpoint: stickiness and lifecycle are trend filters with their `insight` or `shown_as`.
    if (['TRENDS', 'STICKINESS', 'LIFECYCLE'].includes(insightType)) {
      const trendKind = trendEndpointInsight(filters);
      if (trendKind === 'LIFECYCLE') return savedLifecycleResult(lifecycle, project, filters, now);
      if (trendKind === 'STICKINESS') return savedStickinessResult(stickiness, project, filters, now);
    }
    if (insightType === 'RETENTION') return savedRetentionResult(retention, project, filters, now);
    if (insightType === 'PATHS') return savedPathResult(paths, project, filters, now);
    if (insightType === 'FUNNELS') return savedFunnelResult(funnels, project, filters, now);
    return null;
  }

  /** A FunnelsQuery node through the funnel runner, in the query API's results shape. */
  private async funnelsQueryResult(project: Project, node: JsonObject, path: string, now: DateTime): Promise<KeptResult> {
    const filter = funnelsQueryToFilter(node, path);
    return {
      result: await runFunnelsQuery(this.kinds.funnels, project, filter, path, now),
      hasMore: false,
      timezone: project.timezone,
      resolvedDateRange: await resolvedDateRange(this.warehouse, project, filter.dates, now),
    };
  }

  async compute(project: Project, insight: Pick<SavedInsight, 'query' | 'filters'>): Promise<KeptResult> {
    const now = DateTime.now();
    let items: SeriesItem[];
    let filter: InsightFilter;
    if (insight.query !== null) {
      const { node, path } = computingNode(insight.query);
      if (node.kind === 'FunnelsQuery') return this.funnelsQueryResult(project, node, path, now);
      const answer = answerInsightNode(this.kinds, project, node, path, now);
      if (answer) {
        const computed = await answer;
        return { result: computed.results, hasMore: computed.hasMore, timezone: project.timezone, resolvedDateRange: computed.resolvedDateRange };
      }
      if (node.kind !== 'TrendsQuery') cannotCompute(String(node.kind));
      const plan = trendsQueryToFilter(node, path);
      items = await runTrendsQuery(this.trends, project, plan, { now });
      filter = plan.filter;
    } else {
      const insightType = typeof insight.filters.insight === 'string' ? insight.filters.insight.toUpperCase() : 'TRENDS';
      const kind = this.computeKind(project, insightType, insight.filters, now);
      if (kind) {
        return kind.catch((error: unknown) => {
          throw inFilters(error);
        });
      }
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
