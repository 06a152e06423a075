import type { DateTime } from 'luxon';
import type { Project } from '../../projects/project.js';
import { previousPeriod, type DateRangeInput } from '../../query/date-range.js';
import { projectClock } from '../actors/analysis-inputs.js';
import type { InsightFilter, RawInput } from '../filter-model.js';
import { insightPersonsUrl } from '../lifecycle/insight-persons-url.js';
import { entityToJson, filterToJson, type JsonObject } from '../trends/filter-echo.js';
import { markComparison } from '../trends/trend-series.js';
import { parseStickinessFilter, type StickinessFilter } from './stickiness-filter.js';
import type { StickinessResult, StickinessRunner } from './stickiness-runner.js';

/** One series of PostHog's legacy stickiness result. */
export type StickinessItem = JsonObject & { label: string; count: number; data: number[]; labels: string[]; days: number[] };

/** The legacy answer of a stickiness request: its series, and the filter it was read into. */
export interface LegacyStickiness {
  items: StickinessItem[];
  filter: InsightFilter;
}

/** `1 day`, `2 days`, `3 weeks`… */
function intervalLabel(k: number, interval: string): string {
  return `${k} ${interval}${k > 1 ? 's' : ''}`;
}

/** The legacy series of one period: counts per number of intervals, with the persons URL of each. */
export function stickinessItems(result: StickinessResult, projectId: number, filter: InsightFilter, dates: DateRangeInput = filter.dates): StickinessItem[] {
  const filterJson: JsonObject = { ...filterToJson(filter, dates), insight: 'STICKINESS', shown_as: 'Stickiness' };
  const days = Array.from({ length: result.intervals }, (_, index) => index + 1);
  const labels = days.map((k) => intervalLabel(k, result.interval));
  return result.series.map(({ entity, counts }) => ({
    action: entityToJson(entity),
    label: entity.name,
    count: counts.reduce((sum, value) => sum + value, 0),
    data: counts,
    labels,
    days,
    filter: filterJson,
    persons_urls: days.map((k) => {
      const point: JsonObject = {
        stickiness_days: k,
        entity_id: entity.id,
        entity_type: entity.type,
        entity_math: entity.mathName,
        entity_order: entity.order,
      };
      return { filter: point, url: insightPersonsUrl(projectId, 'stickiness', filterJson, point) };
    }),
  }));
}

/**
 * Runs a legacy stickiness request (the trend endpoint's, or a saved insight's filters); with
 * `compare`, the previous period follows, both on an axis of `day 0`, `day 1`…
 */
export async function legacyStickiness(runner: StickinessRunner, project: Project, input: RawInput, now?: DateTime): Promise<LegacyStickiness> {
  const { stickiness, source } = parseStickinessFilter(input);
  const run = async (filter: StickinessFilter) => {
    const result = await runner.run({ project, filter, now });
    return result ? stickinessItems(result, project.id, source, filter.dates) : null;
  };
  const current = await run(stickiness);
  if (!current) return { items: [], filter: source };
  if (!stickiness.compare) return { items: current, filter: source };
  const previous = await run({ ...stickiness, dates: previousPeriod(stickiness.dates, projectClock(project, now)) });
  const { interval } = stickiness.dates;
  return {
    items: [...markComparison(current, interval, 'current'), ...markComparison(previous ?? [], interval, 'previous')],
    filter: source,
  };
}
