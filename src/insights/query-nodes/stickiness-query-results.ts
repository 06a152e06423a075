import type { DateTime } from 'luxon';
import type { Project } from '../../projects/project.js';
import { previousPeriod } from '../../query/date-range.js';
import { projectClock } from '../actors/analysis-inputs.js';
import type { SeriesEntity } from '../filter-model.js';
import type { StickinessResult, StickinessRunner } from '../stickiness/stickiness-runner.js';
import { compareToPeriod } from '../trends/compare-to-period.js';
import type { InsightQueryAnswer } from './insight-query-answer.js';
import { errorInStickinessQuery, type StickinessQueryPlan } from './stickiness-query.js';

/** One series of a StickinessQuery's results (PostHog's stickiness runner's shape). */
export interface StickinessQueryItem {
  count: number;
  data: number[];
  days: number[];
  label: string;
  labels: string[];
  action: { order: number; type: 'events' | 'actions'; name: string; id: string | number | null; custom_name: string | null };
  compare?: boolean;
  compare_label?: 'current' | 'previous';
}

/** The event's name, the action's name, or `All events`: how PostHog names a stickiness series. */
function seriesName(entity: SeriesEntity): string {
  if (entity.type === 'actions') return entity.name;
  return entity.id === null ? 'All events' : String(entity.id);
}

/** Each data point k counts the actors of k intervals or more: the sums of the counts from k on. */
function suffixSums(counts: number[]): number[] {
  const sums = [...counts];
  for (let index = sums.length - 2; index >= 0; index--) sums[index]! += sums[index + 1]!;
  return sums;
}

function items(result: StickinessResult, plan: StickinessQueryPlan): StickinessQueryItem[] {
  const days = Array.from({ length: result.intervals }, (_, index) => index + 1);
  const labels = days.map((k) => `${k} ${result.interval}${k === 1 ? '' : 's'}${plan.cumulative ? ' or more' : ''}`);
  return result.series.map(({ entity, counts }, index) => {
    const name = seriesName(entity);
    return {
      count: counts.reduce((sum, value) => sum + value, 0),
      data: plan.cumulative ? suffixSums(counts) : counts,
      days,
      label: name,
      labels,
      action: { order: entity.order ?? index, type: entity.type, name, id: entity.id, custom_name: entity.customName },
    };
  });
}

/**
 * Computes a translated StickinessQuery with the legacy stickiness runner, so its numbers are
 * those of `/insights/trend/` with `insight=STICKINESS`: per series the persons active in
 * exactly k intervals (or k or more, cumulative). With `compare`, each series is followed by its
 * compared period's (the previous period, or the one `compare_to` names). An action the project
 * does not have empties the result, as the legacy endpoint does.
 */
export async function runStickinessQuery(
  runner: StickinessRunner,
  project: Project,
  plan: StickinessQueryPlan,
  now: DateTime,
): Promise<InsightQueryAnswer<StickinessQueryItem[]>> {
  try {
    const { filter } = plan;
    const range = await runner.dateRange(project, filter.dates, now);
    const resolvedDateRange = { date_from: range.roundedFrom.toISO()!, date_to: range.to.toISO()! };
    const current = await runner.run({ project, filter, now });
    if (!current) return { results: [], hasMore: false, resolvedDateRange };
    const currentItems = items(current, plan);
    if (!filter.compare) return { results: currentItems, hasMore: false, resolvedDateRange };
    const dates = plan.compareTo === null ? previousPeriod(filter.dates, projectClock(project, now)) : compareToPeriod(filter.dates, plan.compareTo, range);
    const previous = await runner.run({ project, filter: { ...filter, dates }, now });
    const previousItems = previous ? items(previous, plan) : [];
    const results = currentItems.flatMap((item, index) => {
      const compared = previousItems[index];
      const pair: StickinessQueryItem[] = [{ ...item, compare: true, compare_label: 'current' }];
      if (compared) pair.push({ ...compared, compare: true, compare_label: 'previous' });
      return pair;
    });
    return { results, hasMore: false, resolvedDateRange };
  } catch (error) {
    throw errorInStickinessQuery(error, plan.path);
  }
}
