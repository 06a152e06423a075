import { ValidationError } from '../../errors.js';
import { parseInsightFilter, type InsightFilter, type RawInput } from '../filter-model.js';
import { parseFormula } from '../trends/formula.js';
import {
  checkDate,
  errorAtNodePath,
  invalid,
  isAbsent,
  isObject,
  nodeInterval,
  nodeProperties,
  optionalBoolean,
  optionalInteger,
  optionalObject,
  optionalString,
  refuseGroupAggregation,
  refuseSampling,
  refuseUnless,
  type JsonObject,
} from './insight-node-fields.js';
import { compareFields } from './compare-filter.js';
import { legacySeriesLists, nodeSeries } from './series-nodes.js';

/**
 * A TrendsQuery node (PostHog's query schema) as the legacy trend filter, so the legacy runner
 * computes it: PostHog's `filter_to_query` read backwards. Every field that changes the numbers
 * is translated or refused with a 400 naming its dotted path from the request root (`path` is
 * where the node sits, e.g. `query.source`); display-only fields are accepted and ignored.
 */

/** One formula to compute over the series, with the label its node gives it. */
export interface TrendsFormula {
  formula: string;
  customName: string | null;
}

export interface TrendsQueryPlan {
  /** The series, dates, breakdown and options, without a formula. */
  filter: InsightFilter;
  /** Formulas computed one after the other over the same series, in order; empty for the plain series. */
  formulas: TrendsFormula[];
  /** `compareFilter.compare_to`: the compared period starts this far before the current one (null: the previous period). */
  compareTo: string | null;
  /** Where the node sits, for errors found while computing. */
  path: string;
}

const BREAKDOWN_TYPES = new Set(['event', 'person', 'group', 'session', 'cohort']);

/** Where the legacy filter's fields live in a TrendsQuery, for errors the legacy parser or runner raise. */
const LEGACY_FIELD_PATHS: Record<string, string> = {
  date_from: 'dateRange.date_from',
  date_to: 'dateRange.date_to',
  interval: 'interval',
  properties: 'properties',
  formula: 'trendsFilter.formula',
  smoothing_intervals: 'trendsFilter.smoothingIntervals',
  breakdown: 'breakdownFilter.breakdown',
  breakdown_type: 'breakdownFilter.breakdown_type',
  breakdown_group_type_index: 'breakdownFilter.breakdown_group_type_index',
  compare_to: 'compareFilter.compare_to',
  events: 'series',
  actions: 'series',
  math: 'series',
  math_property: 'series',
  math_group_type_index: 'series',
};

/** A legacy-named validation error restated at its place in the node; anything else unchanged. */
export function errorInQuery(error: unknown, path: string): unknown {
  return errorAtNodePath(error, path, LEGACY_FIELD_PATHS);
}

function breakdownFields(node: JsonObject, path: string): RawInput {
  const at = `${path}.breakdownFilter`;
  const filter = optionalObject(node.breakdownFilter, at);
  let breakdown: unknown = filter.breakdown ?? null;
  let type: unknown = filter.breakdown_type ?? null;
  let groupIndex: unknown = filter.breakdown_group_type_index ?? null;
  let bins: unknown = filter.breakdown_histogram_bin_count ?? null;
  let normalizeUrl: unknown = filter.breakdown_normalize_url ?? null;
  const breakdowns = filter.breakdowns;
  if (!isAbsent(breakdowns)) {
    if (!Array.isArray(breakdowns)) invalid(`${at}.breakdowns`, 'Must be a list.');
    refuseUnless(breakdowns.length <= 1, `${at}.breakdowns`, 'Tally breaks a trend down by one property at a time.');
    const [only] = breakdowns;
    if (only !== undefined) {
      refuseUnless(breakdown === null, `${at}.breakdowns`, 'Set either breakdown or breakdowns, not both.');
      if (!isObject(only)) invalid(`${at}.breakdowns.0`, 'Must be an object.');
      breakdown = only.property ?? null;
      type = only.type ?? null;
      groupIndex = only.group_type_index ?? null;
      bins = only.histogram_bin_count ?? null;
      normalizeUrl = only.normalize_url ?? null;
    }
  }
  if (breakdown === null || breakdown === '') return {};
  if (typeof breakdown !== 'string' && typeof breakdown !== 'number' && !Array.isArray(breakdown)) {
    invalid(`${at}.breakdown`, 'A breakdown is a property name, or cohort ids for a cohort breakdown.');
  }
  const typeText = optionalString(type, `${at}.breakdown_type`);
  if (typeText !== null) {
    refuseUnless(BREAKDOWN_TYPES.has(typeText), `${at}.breakdown_type`, `Tally cannot break a trend down by "${typeText}" yet.`);
  }
  return {
    breakdown,
    breakdown_type: typeText ?? undefined,
    breakdown_group_type_index: optionalInteger(groupIndex, `${at}.breakdown_group_type_index`, 0, 4) ?? undefined,
    breakdown_limit: optionalInteger(filter.breakdown_limit, `${at}.breakdown_limit`, 1) ?? undefined,
    breakdown_histogram_bin_count: optionalInteger(bins, `${at}.breakdown_histogram_bin_count`, 1) ?? undefined,
    breakdown_hide_other_aggregation: optionalBoolean(filter.breakdown_hide_other_aggregation, `${at}.breakdown_hide_other_aggregation`),
    breakdown_normalize_url: optionalBoolean(normalizeUrl, `${at}.breakdown_normalize_url`),
  };
}

function formulas(trendsFilter: JsonObject, seriesCount: number, path: string): TrendsFormula[] {
  const at = `${path}.trendsFilter`;
  const checked = (formula: unknown, formulaPath: string, customName: string | null): TrendsFormula[] => {
    const text = optionalString(formula, formulaPath);
    if (text === null || text.trim() === '') return [];
    try {
      parseFormula(text, seriesCount);
    } catch (error) {
      if (error instanceof ValidationError) throw new ValidationError(formulaPath, error.detail, error.code);
      throw error;
    }
    return [{ formula: text, customName }];
  };
  const nodes = trendsFilter.formulaNodes;
  if (Array.isArray(nodes) && nodes.length > 0) {
    return nodes.flatMap((node, index) => {
      const nodePath = `${at}.formulaNodes.${index}`;
      if (!isObject(node)) invalid(nodePath, 'Must be an object.');
      const customName = optionalString(node.custom_name, `${nodePath}.custom_name`);
      return checked(node.formula, `${nodePath}.formula`, customName === '' ? null : customName);
    });
  }
  if (!isAbsent(nodes) && !Array.isArray(nodes)) invalid(`${at}.formulaNodes`, 'Must be a list.');
  const list = trendsFilter.formulas;
  if (Array.isArray(list) && list.length > 0) return list.flatMap((formula, index) => checked(formula, `${at}.formulas.${index}`, null));
  if (!isAbsent(list) && !Array.isArray(list)) invalid(`${at}.formulas`, 'Must be a list.');
  return checked(trendsFilter.formula, `${at}.formula`, null);
}

/**
 * Translates a TrendsQuery node found at `path` (for example `query.source`) into the legacy
 * trend filter, the formulas to compute over it and the compared period.
 */
export function trendsQueryToFilter(node: unknown, path: string): TrendsQueryPlan {
  if (!isObject(node)) invalid(path, 'A query must be an object.');
  if (node.kind !== 'TrendsQuery') invalid(`${path}.kind`, 'Expected a TrendsQuery.');
  const series = nodeSeries(node, path, 'trends');

  const interval = nodeInterval(node.interval, `${path}.interval`);
  const dateRange = optionalObject(node.dateRange, `${path}.dateRange`);
  const trendsFilter = optionalObject(node.trendsFilter, `${path}.trendsFilter`);
  const { compare, compareTo } = compareFields(node, path);
  refuseSampling(node, path);
  refuseGroupAggregation(node, path, 'Aggregate trends by groups with the series math unique_group.');
  const goal = node.conversionGoal;
  refuseUnless(isAbsent(goal), `${path}.conversionGoal`, 'Tally cannot compute conversion goals yet.');
  const smoothing = optionalInteger(trendsFilter.smoothingIntervals, `${path}.trendsFilter.smoothingIntervals`, 1);

  const raw: RawInput = {
    insight: 'TRENDS',
    ...legacySeriesLists(series),
    date_from: checkDate(dateRange.date_from, `${path}.dateRange.date_from`, true),
    date_to: checkDate(dateRange.date_to, `${path}.dateRange.date_to`, false),
    explicit_date: optionalBoolean(dateRange.explicitDate, `${path}.dateRange.explicitDate`),
    interval,
    display: optionalString(trendsFilter.display, `${path}.trendsFilter.display`) ?? undefined,
    smoothing_intervals: smoothing ?? undefined,
    compare,
    filter_test_accounts: optionalBoolean(node.filterTestAccounts, `${path}.filterTestAccounts`),
    ...breakdownFields(node, path),
  };
  const properties = nodeProperties(node.properties, `${path}.properties`);
  const planned = formulas(trendsFilter, series.length, path);

  let filter: InsightFilter;
  try {
    filter = parseInsightFilter(raw);
  } catch (error) {
    throw errorInQuery(error, path);
  }
  // Each series carries its order, so the parsed entities are in series order.
  const entities = filter.entities.map((entity, index) => ({ ...entity, properties: series[index]!.properties }));
  return { filter: { ...filter, entities, properties }, formulas: planned, compareTo, path };
}
