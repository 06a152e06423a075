import type { DateRangeInput } from '../../query/date-range.js';
import type { PropertyGroup } from '../../query/property-filter-model.js';
import { parseAnalysisFilter } from '../actors/analysis-filter.js';
import type { InsightFilter, RawInput, SeriesEntity } from '../filter-model.js';

export const STICKINESS_OPERATORS = ['gte', 'lte', 'exact'] as const;
export type StickinessOperator = (typeof STICKINESS_OPERATORS)[number];

/** Which intervals count for an actor: those in which its number of events satisfies `operator value`. */
export interface StickinessCriteria {
  operator: StickinessOperator;
  value: number;
}

/** What a stickiness query counts: each series on its own, over a range of intervals. */
export interface StickinessFilter {
  series: SeriesEntity[];
  /** Global property filters; each series' own are on the series. */
  properties: PropertyGroup;
  filterTestAccounts: boolean;
  dates: DateRangeInput;
  /** Also count the previous period of the same length. */
  compare: boolean;
  /** Null: every interval with an event counts (the legacy stickiness). */
  criteria: StickinessCriteria | null;
}

export function stickinessFilter(filter: InsightFilter): StickinessFilter {
  return {
    series: filter.entities,
    properties: filter.properties,
    filterTestAccounts: filter.filterTestAccounts,
    dates: filter.dates,
    compare: filter.compare,
    criteria: null,
  };
}

/** A stickiness request's filter, and the trend-style filter it was read from (which persons URLs echo). */
export function parseStickinessFilter(input: RawInput): { stickiness: StickinessFilter; source: InsightFilter } {
  const source = parseAnalysisFilter(input);
  return { stickiness: stickinessFilter(source), source };
}
