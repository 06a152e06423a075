import { parseInsightFilter, type InsightFilter, type RawInput } from '../filter-model.js';
import { lifecycleFilter, type LifecycleFilter } from '../lifecycle/lifecycle-filter.js';
import {
  checkDate,
  errorAtNodePath,
  invalid,
  isObject,
  nodeInterval,
  nodeProperties,
  optionalBoolean,
  optionalObject,
  refuseGroupAggregation,
  refuseSampling,
} from './insight-node-fields.js';
import { legacySeriesLists, nodeSeries } from './series-nodes.js';

/**
 * A LifecycleQuery node as the legacy lifecycle filter (what `/insights/trend/` with
 * `insight=LIFECYCLE` computes). `lifecycleFilter` only changes how the result is shown: all
 * four statuses are always computed.
 */

export interface LifecycleQueryPlan {
  filter: LifecycleFilter;
  /** Where the node sits, for errors found while computing. */
  path: string;
}

/** Where the legacy filter's fields live in a LifecycleQuery, for errors the legacy parser or runner raise. */
const LEGACY_FIELD_PATHS: Record<string, string> = {
  date_from: 'dateRange.date_from',
  date_to: 'dateRange.date_to',
  interval: 'interval',
  properties: 'properties',
  events: 'series',
  actions: 'series',
};

/** A legacy-named validation error restated at its place in a LifecycleQuery; anything else unchanged. */
export function errorInLifecycleQuery(error: unknown, path: string): unknown {
  return errorAtNodePath(error, path, LEGACY_FIELD_PATHS);
}

/**
 * Translates a LifecycleQuery node found at `path` into the lifecycle runner's filter, for the
 * insight and for the actors of its data points alike. It takes exactly one series: PostHog
 * silently uses the first of several, Tally says so.
 */
export function lifecycleQueryToFilter(node: unknown, path: string): LifecycleQueryPlan {
  if (!isObject(node)) invalid(path, 'A query must be an object.');
  if (node.kind !== 'LifecycleQuery') invalid(`${path}.kind`, 'Expected a LifecycleQuery.');
  const series = nodeSeries(node, path, 'ignored');
  if (series.length !== 1) invalid(`${path}.series`, 'A LifecycleQuery takes exactly one series.');
  const interval = nodeInterval(node.interval, `${path}.interval`);
  const dateRange = optionalObject(node.dateRange, `${path}.dateRange`);
  optionalObject(node.lifecycleFilter, `${path}.lifecycleFilter`);
  refuseSampling(node, path);
  refuseGroupAggregation(node, path, 'Tally counts persons in a lifecycle insight.');

  const raw: RawInput = {
    ...legacySeriesLists(series),
    date_from: checkDate(dateRange.date_from, `${path}.dateRange.date_from`, true),
    date_to: checkDate(dateRange.date_to, `${path}.dateRange.date_to`, false),
    explicit_date: optionalBoolean(dateRange.explicitDate, `${path}.dateRange.explicitDate`),
    interval,
    filter_test_accounts: optionalBoolean(node.filterTestAccounts, `${path}.filterTestAccounts`),
  };
  const properties = nodeProperties(node.properties, `${path}.properties`);
  let filter: InsightFilter;
  try {
    filter = parseInsightFilter(raw);
  } catch (error) {
    throw errorInLifecycleQuery(error, path);
  }
  const entities = filter.entities.map((entity) => ({ ...entity, properties: series[0]!.properties }));
  return { filter: lifecycleFilter({ ...filter, entities, properties }), path };
}
