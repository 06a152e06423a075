import type { DateTime } from 'luxon';
import type { Project } from '../../projects/project.js';
import { formatDay, formatLabel } from '../../query/date-range.js';
import type { FunnelFilter } from '../funnels/funnel-filter.js';
import type { FunnelResult, FunnelStepsSeries, FunnelTrendsResult, FunnelTrendsSeries } from '../funnels/funnel-results.js';
import type { FunnelRunner } from '../funnels/funnel-runner.js';
import { funnelErrorInQuery } from './funnels-query.js';
import { bucketFields, stepNames } from '../funnels/funnel-step-fields.js';

/**
 * A FunnelsQuery's `results` (PostHog's `funnels/base.py` shapes, which the legacy endpoint shares
 * without its persons URLs): the steps, a list of them per breakdown bucket, the conversion
 * rates of funnel trends, or the time-to-convert histogram.
 */

function steps(series: FunnelStepsSeries, unordered: boolean): object[] {
  const breakdown = series.bucket ? bucketFields(series.bucket) : {};
  return series.steps.map((step) => ({
    ...stepNames(step, unordered),
    order: step.index,
    people: [],
    count: step.count,
    type: step.entity.type,
    average_conversion_time: step.averageConversionTime,
    median_conversion_time: step.medianConversionTime,
    ...breakdown,
  }));
}

function trend(series: FunnelTrendsSeries, interval: FunnelTrendsResult['interval']): object {
  const item: Record<string, unknown> = {
    count: series.points.length,
    data: series.points.map((point) => point.conversionRate),
    days: series.points.map((point) => formatDay(point.periodStart, interval)),
    // Funnel trends label every interval by its day, as the legacy endpoint does.
    labels: series.points.map((point) => formatLabel(point.periodStart, 'day')),
  };
  if (series.bucket) item.breakdown_value = series.bucket.kind === 'cohort' ? series.bucket.name : bucketFields(series.bucket).breakdown_value;
  return item;
}

/** The runner's typed result in the query API's `results` shape. */
export function funnelsQueryResults(result: FunnelResult): unknown {
  switch (result.kind) {
    case 'steps': {
      const unordered = result.orderType === 'unordered';
      const lists = result.series.map((series) => steps(series, unordered));
      // Without a breakdown one list of steps; with one, a list per bucket (none without actors).
      return result.series.length === 1 && result.series[0]!.bucket === null ? lists[0] : lists;
    }
    case 'trends':
      return result.series.map((series) => trend(series, result.interval));
    case 'time_to_convert':
      return { bins: result.bins, average_conversion_time: result.averageConversionTime };
  }
}

/** Computes a translated FunnelsQuery (at `path`) with the funnel runner; errors name the node's fields. */
export async function runFunnelsQuery(funnels: FunnelRunner, project: Project, filter: FunnelFilter, path: string, now: DateTime): Promise<unknown> {
  try {
    return funnelsQueryResults(await funnels.run(project, filter, { now }));
  } catch (error) {
    throw funnelErrorInQuery(error, path);
  }
}
