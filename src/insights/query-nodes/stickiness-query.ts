import { parseInsightFilter, type InsightFilter, type RawInput } from '../filter-model.js';
import { STICKINESS_OPERATORS, stickinessFilter, type StickinessCriteria, type StickinessFilter } from '../stickiness/stickiness-filter.js';
import {
  checkDate,
  errorAtNodePath,
  invalid,
  isAbsent,
  isObject,
  nodeInterval,
  nodeProperties,
  optionalBoolean,
  optionalChoice,
  optionalInteger,
  optionalObject,
  refuseGroupAggregation,
  refuseSampling,
  refuseUnless,
  type JsonObject,
} from './insight-node-fields.js';
import { legacySeriesLists, nodeSeries } from './series-nodes.js';
import { compareFields } from './compare-filter.js';

/**
 * A StickinessQuery node as the legacy stickiness filter (what `/insights/trend/` with
 * `insight=STICKINESS` computes), with what the query API adds on top of it: `stickinessCriteria`
 * (computed by the stickiness runner), `computedAs: cumulative` (suffix sums of the same
 * counts) and `compareFilter.compare_to`. Series maths other than actor maths count persons, as
 * PostHog's `filter_to_query` turns them into `dau`.
 */

export interface StickinessQueryPlan {
  /** The series, dates, criteria and `compare`, as the stickiness runner reads them. */
  filter: StickinessFilter;
  /** `compareFilter.compare_to`, with `compare`: where the compared period starts (null: the previous period). */
  compareTo: string | null;
  /** `computedAs: cumulative`: each data point counts the actors of that many intervals or more. */
  cumulative: boolean;
  /** Where the node sits, for errors found while computing. */
  path: string;
}

/** Where the legacy filter's fields live in a StickinessQuery, for errors the legacy parser or runner raise. */
const LEGACY_FIELD_PATHS: Record<string, string> = {
  date_from: 'dateRange.date_from',
  date_to: 'dateRange.date_to',
  interval: 'interval',
  properties: 'properties',
  compare_to: 'compareFilter.compare_to',
  events: 'series',
  actions: 'series',
};

/** A legacy-named validation error restated at its place in a StickinessQuery; anything else unchanged. */
export function errorInStickinessQuery(error: unknown, path: string): unknown {
  return errorAtNodePath(error, path, LEGACY_FIELD_PATHS);
}

function criteria(stickiness: JsonObject, path: string): StickinessCriteria | null {
  const at = `${path}.stickinessFilter.stickinessCriteria`;
  const value = stickiness.stickinessCriteria;
  if (isAbsent(value)) return null;
  if (!isObject(value)) invalid(at, 'Must be an object with operator and value.');
  const operator = optionalChoice(value.operator, `${at}.operator`, STICKINESS_OPERATORS);
  if (operator === null) invalid(`${at}.operator`, 'This field is required.');
  const count = optionalInteger(value.value, `${at}.value`, 0);
  if (count === null) invalid(`${at}.value`, 'This field is required.');
  return { operator, value: count };
}

/**
 * Translates a StickinessQuery node found at `path` into the stickiness runner's filter, for
 * the insight and for the actors of its data points alike.
 */
export function stickinessQueryToFilter(node: unknown, path: string): StickinessQueryPlan {
  if (!isObject(node)) invalid(path, 'A query must be an object.');
  if (node.kind !== 'StickinessQuery') invalid(`${path}.kind`, 'Expected a StickinessQuery.');
  const series = nodeSeries(node, path, 'actors');
  const interval = nodeInterval(node.interval, `${path}.interval`);
  const intervalCount = optionalInteger(node.intervalCount, `${path}.intervalCount`, 1);
  refuseUnless(intervalCount === null || intervalCount === 1, `${path}.intervalCount`, 'Tally counts stickiness in single intervals: intervalCount must be 1.');
  const dateRange = optionalObject(node.dateRange, `${path}.dateRange`);
  const stickiness = optionalObject(node.stickinessFilter, `${path}.stickinessFilter`);
  const computedAs = optionalChoice(stickiness.computedAs, `${path}.stickinessFilter.computedAs`, ['non_cumulative', 'cumulative'] as const);
  const { compare, compareTo } = compareFields(node, path);
  refuseSampling(node, path);
  refuseGroupAggregation(node, path, 'Tally counts persons in a stickiness insight.');

  const raw: RawInput = {
    ...legacySeriesLists(series),
    date_from: checkDate(dateRange.date_from, `${path}.dateRange.date_from`, true),
    date_to: checkDate(dateRange.date_to, `${path}.dateRange.date_to`, false),
    explicit_date: optionalBoolean(dateRange.explicitDate, `${path}.dateRange.explicitDate`),
    interval,
    compare,
    filter_test_accounts: optionalBoolean(node.filterTestAccounts, `${path}.filterTestAccounts`),
  };
  const properties = nodeProperties(node.properties, `${path}.properties`);
  const planned = criteria(stickiness, path);

  let filter: InsightFilter;
  try {
    filter = parseInsightFilter(raw);
  } catch (error) {
    throw errorInStickinessQuery(error, path);
  }
  const entities = filter.entities.map((entity, index) => ({ ...entity, properties: series[index]!.properties }));
  return {
    filter: { ...stickinessFilter({ ...filter, entities, properties }), criteria: planned },
    compareTo,
    cumulative: computedAs === 'cumulative',
    path,
  };
}
