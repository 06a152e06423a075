import { textOf } from '../../util/text.js';
import { CUMULATIVE_DISPLAY, isTimeSeries, type InsightFilter } from '../filter-model.js';
import { evaluateFormula, evaluateFormulaSeries, type Formula } from './formula.js';
import { runningTotal, type SeriesItem } from './trend-series.js';
import type { EntityResult } from './trend-service.js';

/**
 * Formula items (PostHog's TrendsFormula): the entities' series combined point by point. With a
 * breakdown, values are matched across series (a value missing from a series counts 0). Items
 * carry only data, count, labels, days and label (plus breakdown_value / aggregated_value).
 */
export function formulaItems(formula: Formula, filter: InsightFilter, results: EntityResult[], cohortNames: Map<number, string>): SeriesItem[] {
  const timeSeries = isTimeSeries(filter);
  const template = results.flatMap((result) => result.items)[0];
  if (!template) return [];
  const keys = filter.breakdown ? breakdownKeys(results) : [null];
  return keys.map((key) => {
    const matching = results.map((result) => (key === null ? result.items[0] : result.items.find((item) => breakdownKey(item) === key)));
    const label = key === null ? `Formula (${formula.text})` : breakdownLabel(filter, key, cohortNames);
    if (!timeSeries) {
      const value = evaluateFormula(
        formula,
        matching.map((item) => numeric(item?.aggregated_value)),
      );
      return withBreakdown(
        { data: [], count: 0, labels: [], days: [], label, aggregated_value: Number.isFinite(value) ? value : null },
        key === null ? null : label,
      );
    }
    const combined = evaluateFormulaSeries(
      formula,
      matching.map((item) => item?.data ?? []),
    ).map((value) => (Number.isFinite(value) ? value : 0));
    const data = filter.display === CUMULATIVE_DISPLAY ? runningTotal(combined) : combined;
    return withBreakdown(
      { data, count: data.reduce((sum, value) => sum + value, 0), labels: template.labels, days: template.days, label },
      key === null ? null : label,
    );
  });
}

function numeric(value: unknown): number {
  return typeof value === 'number' ? value : 0;
}

function breakdownKey(item: SeriesItem): string {
  return textOf(item.breakdown_value);
}

/** Every breakdown value of any series, in the order the series list them. */
function breakdownKeys(results: EntityResult[]): string[] {
  const keys = new Set<string>();
  for (const result of results) for (const item of result.items) keys.add(breakdownKey(item));
  return [...keys];
}

/** The raw breakdown value (so null shows as `$$_posthog_breakdown_null_$$`); cohorts show their name. */
function breakdownLabel(filter: InsightFilter, key: string, cohortNames: Map<number, string>): string {
  if (filter.breakdown?.type !== 'cohort') return key;
  return key === 'all' ? 'all users' : (cohortNames.get(Number(key)) ?? key);
}

function withBreakdown(item: SeriesItem, breakdownValue: string | null): SeriesItem {
  return breakdownValue === null ? item : { ...item, breakdown_value: breakdownValue };
}
