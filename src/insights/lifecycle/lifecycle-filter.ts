import { ValidationError } from '../../errors.js';
import type { DateRangeInput } from '../../query/date-range.js';
import type { PropertyGroup } from '../../query/property-filter-model.js';
import { parseAnalysisFilter } from '../actors/analysis-filter.js';
import type { InsightFilter, RawInput, SeriesEntity } from '../filter-model.js';

/** The four statuses of PostHog's lifecycle, in the order results list them. */
export const LIFECYCLE_STATUSES = ['new', 'returning', 'resurrecting', 'dormant'] as const;
export type LifecycleStatus = (typeof LIFECYCLE_STATUSES)[number];

/** What a lifecycle query counts: one series, filtered, over a range of periods. */
export interface LifecycleFilter {
  series: SeriesEntity;
  /** Global property filters; the series' own are on the series. */
  properties: PropertyGroup;
  filterTestAccounts: boolean;
  dates: DateRangeInput;
}

/** The lifecycle of a trend-style filter, which must have exactly one series. */
export function lifecycleFilter(filter: InsightFilter): LifecycleFilter {
  const [series, ...others] = filter.entities;
  if (!series) throw new ValidationError('events', 'A lifecycle needs one series in events or actions.', 'required');
  if (others.length > 0) {
    const attr = filter.entities.some((entity) => entity.type === 'events') ? 'events' : 'actions';
    throw new ValidationError(attr, 'A lifecycle takes exactly one series, in events or actions.');
  }
  return { series, properties: filter.properties, filterTestAccounts: filter.filterTestAccounts, dates: filter.dates };
}

/** A lifecycle request's filter, and the trend-style filter it was read from (which persons URLs echo). */
export function parseLifecycleFilter(input: RawInput): { lifecycle: LifecycleFilter; source: InsightFilter } {
  const source = parseAnalysisFilter(input);
  return { lifecycle: lifecycleFilter(source), source };
}
