import type { RawInput } from '../filter-model.js';
import type { FunnelFilter } from '../funnels/funnel-filter.js';
import { FUNNEL_PATH_TYPES, parsePathFilter, type PathFilter } from '../paths/path-filter.js';
import { entityToJson, propertyGroupToJson } from '../trends/filter-echo.js';
import { funnelsQueryToFilter } from './funnels-query.js';
import {
  checkDate,
  errorAtNodePath,
  invalid,
  isAbsent,
  isObject,
  nodeProperties,
  optionalBoolean,
  optionalChoice,
  optionalInteger,
  optionalObject,
  optionalString,
  optionalStringList,
  refuseGroupAggregation,
  refuseSampling,
  refuseUnless,
  type JsonObject,
} from './insight-node-fields.js';

/**
 * A PathsQuery node as the legacy paths filter (what `/insights/path/` computes): `pathsFilter`
 * field by field, and `funnelPathsFilter` (paths of a FunnelsQuery's persons around one of its
 * steps) as the legacy `funnel_paths` with the funnel's legacy filter. HogQL path items
 * (`pathsHogQLExpression`) are refused until Tally has them.
 */

export interface PathsQueryPlan {
  filter: PathFilter;
  /** Where the node sits, for errors found while computing. */
  path: string;
}

/** Where the legacy filter's fields live in a PathsQuery, for errors the legacy parser or runner raise. */
const LEGACY_FIELD_PATHS: Record<string, string> = {
  date_from: 'dateRange.date_from',
  date_to: 'dateRange.date_to',
  properties: 'properties',
  include_event_types: 'pathsFilter.includeEventTypes',
  start_point: 'pathsFilter.startPoint',
  end_point: 'pathsFilter.endPoint',
  step_limit: 'pathsFilter.stepLimit',
  edge_limit: 'pathsFilter.edgeLimit',
  min_edge_weight: 'pathsFilter.minEdgeWeight',
  max_edge_weight: 'pathsFilter.maxEdgeWeight',
  exclude_events: 'pathsFilter.excludeEvents',
  path_groupings: 'pathsFilter.pathGroupings',
  local_path_cleaning_filters: 'pathsFilter.localPathCleaningFilters',
  path_start_key: 'pathsFilter.pathStartKey',
  path_end_key: 'pathsFilter.pathEndKey',
  path_dropoff_key: 'pathsFilter.pathDropoffKey',
  funnel_paths: 'funnelPathsFilter.funnelPathType',
  funnel_filter: 'funnelPathsFilter',
  funnel_step: 'funnelPathsFilter.funnelStep',
};

/** A legacy-named validation error restated at its place in a PathsQuery; anything else unchanged. */
export function errorInPathsQuery(error: unknown, path: string): unknown {
  return errorAtNodePath(error, path, LEGACY_FIELD_PATHS);
}

const EVENT_TYPES = ['$pageview', '$screen', 'custom_event', 'hogql'] as const;

function pathsFields(node: JsonObject, path: string): RawInput {
  const at = `${path}.pathsFilter`;
  if (isAbsent(node.pathsFilter)) invalid(at, 'This field is required.');
  const paths = optionalObject(node.pathsFilter, at);
  const types = optionalStringList(paths.includeEventTypes, `${at}.includeEventTypes`);
  types.forEach((type, index) => {
    const typeAt = `${at}.includeEventTypes.${index}`;
    optionalChoice(type, typeAt, EVENT_TYPES);
    refuseUnless(type !== 'hogql', typeAt, 'Tally cannot build paths of HogQL expressions yet.');
  });
  const expression = optionalString(paths.pathsHogQLExpression, `${at}.pathsHogQLExpression`);
  refuseUnless(expression === null || expression === '', `${at}.pathsHogQLExpression`, 'Tally cannot build paths of HogQL expressions yet.');
  const cleaning = paths.localPathCleaningFilters;
  if (!isAbsent(cleaning) && !Array.isArray(cleaning)) invalid(`${at}.localPathCleaningFilters`, 'Must be a list of {regex, alias}.');
  (Array.isArray(cleaning) ? cleaning : []).forEach((rule, index) => {
    if (!isObject(rule)) invalid(`${at}.localPathCleaningFilters.${index}`, 'Must be an object with regex and alias.');
  });
  const text = (field: string) => optionalString(paths[field], `${at}.${field}`) ?? undefined;
  const count = (field: string, max?: number) => optionalInteger(paths[field], `${at}.${field}`, 1, max) ?? undefined;
  return {
    include_event_types: types,
    start_point: text('startPoint'),
    end_point: text('endPoint'),
    step_limit: count('stepLimit', 100),
    edge_limit: count('edgeLimit'),
    min_edge_weight: count('minEdgeWeight'),
    max_edge_weight: count('maxEdgeWeight'),
    exclude_events: optionalStringList(paths.excludeEvents, `${at}.excludeEvents`),
    path_groupings: optionalStringList(paths.pathGroupings, `${at}.pathGroupings`),
    path_replacements: optionalBoolean(paths.pathReplacements, `${at}.pathReplacements`),
    local_path_cleaning_filters: cleaning ?? undefined,
    path_start_key: text('pathStartKey'),
    path_end_key: text('pathEndKey'),
    path_dropoff_key: text('pathDropoffKey'),
  };
}

/**
 * A funnel filter as the legacy funnel parameters that describe it: what `funnel_filter`
 * carries for funnel paths, so the path runner reads the funnel the FunnelsQuery describes.
 */
function funnelFilterParams(filter: FunnelFilter): RawInput {
  const steps = filter.steps.map((step, index) => ({ type: step.type, json: { ...entityToJson(step), order: index } }));
  return {
    events: steps.filter((step) => step.type === 'events').map((step) => step.json),
    actions: steps.filter((step) => step.type === 'actions').map((step) => step.json),
    properties: propertyGroupToJson(filter.properties),
    filter_test_accounts: filter.filterTestAccounts,
    date_from: filter.dates.dateFrom,
    date_to: filter.dates.dateTo,
    explicit_date: filter.dates.explicitDate,
    interval: filter.dates.interval,
    funnel_order_type: filter.orderType,
    funnel_window_interval: filter.windowSeconds,
    funnel_window_interval_unit: 'second',
    exclusions: filter.exclusions.map((exclusion) => ({
      id: exclusion.entity.id,
      type: exclusion.entity.type,
      funnel_from_step: exclusion.fromStep,
      funnel_to_step: exclusion.toStep,
      properties: propertyGroupToJson(exclusion.entity.properties),
    })),
    aggregation_group_type_index: filter.aggregationGroupTypeIndex,
  };
}

/** `funnelPathsFilter {funnelPathType, funnelSource: FunnelsQuery, funnelStep}` as the legacy `funnel_paths` and `funnel_filter`. */
function funnelPathsFields(node: JsonObject, path: string): RawInput {
  const at = `${path}.funnelPathsFilter`;
  if (isAbsent(node.funnelPathsFilter)) return {};
  const funnelPaths = optionalObject(node.funnelPathsFilter, at);
  const type = optionalChoice(funnelPaths.funnelPathType, `${at}.funnelPathType`, FUNNEL_PATH_TYPES);
  if (type === null) invalid(`${at}.funnelPathType`, 'This field is required.');
  if (isAbsent(funnelPaths.funnelSource)) invalid(`${at}.funnelSource`, 'This field is required.');
  const funnel = funnelsQueryToFilter(funnelPaths.funnelSource, `${at}.funnelSource`);
  const step = funnelPaths.funnelStep;
  if (isAbsent(step)) invalid(`${at}.funnelStep`, 'This field is required.');
  if (typeof step !== 'number' || !Number.isInteger(step)) invalid(`${at}.funnelStep`, 'Must be an integer.');
  return { funnel_paths: type, funnel_filter: { ...funnelFilterParams(funnel), funnel_step: step } };
}

/**
 * Translates a PathsQuery node found at `path` into the path runner's filter, for the insight
 * and for the actors of its edges (`pathStartKey`, `pathEndKey`, `pathDropoffKey`) alike.
 */
export function pathsQueryToFilter(node: unknown, path: string): PathsQueryPlan {
  if (!isObject(node)) invalid(path, 'A query must be an object.');
  if (node.kind !== 'PathsQuery') invalid(`${path}.kind`, 'Expected a PathsQuery.');
  const dateRange = optionalObject(node.dateRange, `${path}.dateRange`);
  refuseSampling(node, path);
  refuseGroupAggregation(node, path, 'Tally follows the paths of persons only.');
  const raw: RawInput = {
    ...pathsFields(node, path),
    ...funnelPathsFields(node, path),
    date_from: checkDate(dateRange.date_from, `${path}.dateRange.date_from`, true),
    date_to: checkDate(dateRange.date_to, `${path}.dateRange.date_to`, false),
    explicit_date: optionalBoolean(dateRange.explicitDate, `${path}.dateRange.explicitDate`),
    filter_test_accounts: optionalBoolean(node.filterTestAccounts, `${path}.filterTestAccounts`),
  };
  const properties = nodeProperties(node.properties, `${path}.properties`);
  let filter: PathFilter;
  try {
    filter = parsePathFilter(raw);
  } catch (error) {
    throw errorInPathsQuery(error, path);
  }
  return { filter: { ...filter, properties }, path };
}
