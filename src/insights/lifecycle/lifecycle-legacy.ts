import type { DateTime } from 'luxon';
import type { Project } from '../../projects/project.js';
import { formatDay, formatLabel } from '../../query/date-range.js';
import { randomBase62 } from '../../util/random.js';
import type { InsightFilter, RawInput } from '../filter-model.js';
import { entityToJson, filterToJson, type JsonObject } from '../trends/filter-echo.js';
import type { SeriesItem } from '../trends/trend-series.js';
import { insightPersonsUrl } from './insight-persons-url.js';
import { LIFECYCLE_STATUSES, parseLifecycleFilter } from './lifecycle-filter.js';
import type { LifecycleResult, LifecycleRunner } from './lifecycle-runner.js';

/** The legacy answer of a lifecycle request: its series, and the filter it was read into. */
export interface LegacyLifecycle {
  items: SeriesItem[];
  filter: InsightFilter;
}

/**
 * PostHog's legacy lifecycle result: one series per status (new, returning, resurrecting,
 * dormant), each with the persons URL of every period.
 */
export function lifecycleItems(result: LifecycleResult, projectId: number, filter: InsightFilter): SeriesItem[] {
  const { series, interval, periods } = result;
  const filterJson: JsonObject = { ...filterToJson(filter), insight: 'LIFECYCLE', shown_as: 'Lifecycle' };
  const labels = periods.map((period) => formatLabel(period, interval));
  const days = periods.map((period) => formatDay(period, interval));
  const cacheKey = randomBase62(8);
  return LIFECYCLE_STATUSES.map((status) => {
    const data = result.counts[status];
    return {
      action: entityToJson(series),
      label: `${series.name} - ${status}`,
      count: data.reduce((sum, value) => sum + value, 0),
      data,
      labels,
      days,
      status,
      persons_urls: days.map((day) => {
        const point: JsonObject = {
          entity_id: series.id,
          entity_type: series.type,
          entity_math: series.mathName,
          target_date: day,
          entity_order: series.order,
          lifecycle_type: status,
        };
        return { filter: point, url: `${insightPersonsUrl(projectId, 'lifecycle', filterJson, point)}&cache_invalidation_key=${cacheKey}` };
      }),
    };
  });
}

/** Runs a legacy lifecycle request (the trend endpoint's, or a saved insight's filters). */
export async function legacyLifecycle(runner: LifecycleRunner, project: Project, input: RawInput, now?: DateTime): Promise<LegacyLifecycle> {
  const { lifecycle, source } = parseLifecycleFilter(input);
  const result = await runner.run({ project, filter: lifecycle, now });
  return { items: result ? lifecycleItems(result, project.id, source) : [], filter: source };
}
