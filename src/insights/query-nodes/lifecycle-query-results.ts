import type { DateTime } from 'luxon';
import { ValidationError } from '../../errors.js';
import type { Project } from '../../projects/project.js';
import { formatDay, formatLabel, type QueryDateRange } from '../../query/date-range.js';
import type { SeriesEntity } from '../filter-model.js';
import { LIFECYCLE_STATUSES, type LifecycleStatus } from '../lifecycle/lifecycle-filter.js';
import type { LifecycleResult, LifecycleRunner } from '../lifecycle/lifecycle-runner.js';
import type { InsightQueryAnswer } from './insight-query-answer.js';
import { errorInLifecycleQuery, type LifecycleQueryPlan } from './lifecycle-query.js';

/** One status of a LifecycleQuery's results (PostHog's lifecycle runner's shape). */
export interface LifecycleQueryItem {
  action: { id: string | null; name: string; type: 'events' | 'actions'; order: 0; math: 'total'; custom_name?: string };
  data: number[];
  count: number;
  labels: string[];
  days: string[];
  label: string;
  status: LifecycleStatus;
}

function action(series: SeriesEntity, name: string): LifecycleQueryItem['action'] {
  const json: LifecycleQueryItem['action'] = {
    id: series.id === null ? null : String(series.id),
    name,
    type: series.type,
    order: 0,
    math: 'total',
  };
  if (series.customName !== null) json.custom_name = series.customName;
  return json;
}

/**
 * Computes a translated LifecycleQuery with the legacy lifecycle runner, so its numbers are
 * those of `/insights/trend/` with `insight=LIFECYCLE`: four items, new, returning, resurrecting
 * and dormant (negative), labelled `<event or action name> - <status>`. An action the project
 * does not have is a 400 naming the series, as in PostHog.
 */
export async function runLifecycleQuery(
  runner: LifecycleRunner,
  project: Project,
  plan: LifecycleQueryPlan,
  now: DateTime,
): Promise<InsightQueryAnswer<LifecycleQueryItem[]>> {
  let result: LifecycleResult | null;
  let range: QueryDateRange;
  try {
    result = await runner.run({ project, filter: plan.filter, now });
    range = await runner.dateRange(project, plan.filter.dates, now);
  } catch (error) {
    throw errorInLifecycleQuery(error, plan.path);
  }
  const { series } = plan.filter;
  if (!result) throw new ValidationError(`${plan.path}.series.0.id`, `Action ${String(series.id)} does not exist.`);
  const name = series.type === 'actions' ? result.series.name : series.id === null ? 'All events' : String(series.id);
  const labels = result.periods.map((period) => formatLabel(period, result.interval));
  const days = result.periods.map((period) => formatDay(period, result.interval));
  const { counts } = result;
  const results = LIFECYCLE_STATUSES.map((status) => ({
    action: action(series, name),
    data: counts[status],
    count: counts[status].reduce((sum, value) => sum + value, 0),
    labels,
    days,
    label: `${name} - ${status}`,
    status,
  }));
  return {
    results,
    hasMore: false,
    resolvedDateRange: { date_from: (range.buckets[0] ?? range.from).toISO()!, date_to: range.to.toISO()! },
  };
}
