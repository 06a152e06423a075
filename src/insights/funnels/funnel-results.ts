import type { DateTime } from 'luxon';
import type { Interval } from '../../query/date-range.js';
import type { SeriesEntity } from '../filter-model.js';
import type { FunnelOrderType } from './funnel-filter.js';

/**
 * What the funnel runner answers, independent of any surface's JSON: the legacy endpoint and
 * PostHog's query API shape it each their way.
 */

/** A breakdown bucket: the values as the SQL keys it (`bucket`), and what it stands for. */
export type FunnelBucket =
  | { kind: 'values'; key: string[]; values: string[] }
  | { kind: 'group'; key: string[]; value: string }
  | { kind: 'cohort'; key: string[]; cohortId: number; name: string };

export interface FunnelStepCount {
  /** The step's entity; actions carry the action's current name. */
  entity: SeriesEntity;
  /** 0-based position in the funnel. */
  index: number;
  /** Actors who reached at least this step. */
  count: number;
  /** Seconds from the previous step (average and median of the actors' own averages); null for the first step or without conversions. */
  averageConversionTime: number | null;
  medianConversionTime: number | null;
}

export interface FunnelStepsSeries {
  bucket: FunnelBucket | null;
  steps: FunnelStepCount[];
}

export interface FunnelStepsResult {
  kind: 'steps';
  orderType: FunnelOrderType;
  /** One series without a breakdown; one per bucket with actors otherwise. */
  series: FunnelStepsSeries[];
}

export interface FunnelTrendPoint {
  /** Start of the entrance period, in the project timezone. */
  periodStart: DateTime;
  /** Actors who entered in the period and reached the from step, and the to step. */
  reachedFrom: number;
  reachedTo: number;
  /** reachedTo / reachedFrom in percent, two decimals; 0 when nobody reached the from step. */
  conversionRate: number;
}

export interface FunnelTrendsSeries {
  bucket: FunnelBucket | null;
  points: FunnelTrendPoint[];
}

export interface FunnelTrendsResult {
  kind: 'trends';
  interval: Interval;
  series: FunnelTrendsSeries[];
}

export interface FunnelTimeToConvertResult {
  kind: 'time_to_convert';
  /** [bin start in seconds, actors] for each bin, ascending. */
  bins: Array<[number, number]>;
  /** Seconds, two decimals; null without conversions. */
  averageConversionTime: number | null;
}

export type FunnelResult = FunnelStepsResult | FunnelTrendsResult | FunnelTimeToConvertResult;
