import type { Project } from '../../projects/project.js';
import type { TrendOptions, TrendService } from '../trends/trend-service.js';
import { BREAKDOWN_OTHER } from '../trends/breakdown.js';
import type { SeriesItem } from '../trends/trend-series.js';
import { errorInQuery, type TrendsQueryPlan } from './trends-query.js';

/**
 * Computes a translated TrendsQuery with the legacy trend runner, so its numbers are those of
 * `/insights/trend/`: the plain series, or each formula in turn (a formula node's `custom_name`
 * labels its series), beside the period `compareFilter` names. Errors name the node's fields.
 */
export async function runTrendsQuery(trends: TrendService, project: Project, plan: TrendsQueryPlan, runOptions: TrendOptions = {}): Promise<SeriesItem[]> {
  const options: TrendOptions = { ...runOptions, compareTo: plan.compareTo };
  if (plan.formulas.length === 0) {
    try {
      return await trends.run(project, plan.filter, options);
    } catch (error) {
      throw errorInQuery(error, plan.path);
    }
  }
  // Formulas were checked when the node was translated; what fails here is the range or a filter.
  const items: SeriesItem[] = [];
  for (const { formula, customName } of plan.formulas) {
    let computed: SeriesItem[];
    try {
      computed = await trends.run(project, { ...plan.filter, formula }, options);
    } catch (error) {
      throw errorInQuery(error, plan.path);
    }
    items.push(...computed.map((item) => (customName !== null && item.breakdown_value === undefined ? { ...item, label: customName } : item)));
  }
  return items;
}

/** PostHog's `hasMore` of a trend: an "Other" bucket stands for breakdown values left out. */
export function hasOtherBucket(items: SeriesItem[]): boolean {
  return items.some((item) => item.breakdown_value === BREAKDOWN_OTHER);
}
