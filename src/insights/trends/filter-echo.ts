import type { DateRangeInput } from '../../query/date-range.js';
import type { InsightFilter, SeriesEntity } from '../filter-model.js';
import type { PropertyGroup, PropertyNode } from '../../query/property-filter-model.js';

/**
 * The filter as PostHog echoes it in every series (`Filter.to_dict()`): keys appear only when
 * set, except the few PostHog always writes.
 */

export type JsonObject = Record<string, unknown>;

function propertyNodeToJson(node: PropertyNode): JsonObject {
  if (node.kind === 'group') return { type: node.type, values: node.values.map(propertyNodeToJson) };
  const json: JsonObject = { key: node.key, value: node.value, operator: node.operator, type: node.type };
  if (node.groupTypeIndex !== null) json.group_type_index = node.groupTypeIndex;
  if (node.negation) json.negation = true;
  return json;
}

/** `{}` when empty, else `{type, values}`. */
export function propertyGroupToJson(group: PropertyGroup): JsonObject {
  return group.values.length === 0 ? {} : propertyNodeToJson(group);
}

/** `Entity.to_dict()`: the `action` of each series. */
export function entityToJson(entity: SeriesEntity): JsonObject {
  return {
    id: entity.id,
    type: entity.type,
    order: entity.order,
    name: entity.name,
    custom_name: entity.customName,
    math: entity.mathName,
    math_property: entity.mathProperty,
    math_property_revenue_currency: null,
    math_hogql: null,
    math_group_type_index: entity.mathGroupTypeIndex,
    properties: propertyGroupToJson(entity.properties),
    id_field: null,
    timestamp_field: null,
    distinct_id_field: null,
    table_name: null,
  };
}

export function filterToJson(filter: InsightFilter, dates: DateRangeInput = filter.dates): JsonObject {
  const events = filter.entities.filter((entity) => entity.type === 'events');
  const actions = filter.entities.filter((entity) => entity.type === 'actions');
  const json: JsonObject = {
    breakdown_attribution_type: 'first_touch',
    breakdown_normalize_url: filter.breakdown?.normalizeUrl ?? false,
    date_from: dates.dateFrom ?? '-7d',
  };
  if (dates.dateTo !== null) json.date_to = dates.dateTo;
  if (dates.explicitDate) json.explicit_date = 'true';
  json.display = filter.display;
  if (events.length > 0) json.events = events.map(entityToJson);
  if (actions.length > 0) json.actions = actions.map(entityToJson);
  json.insight = 'TRENDS';
  json.interval = dates.interval;
  if (filter.properties.values.length > 0) json.properties = propertyGroupToJson(filter.properties);
  if (filter.filterTestAccounts) json.filter_test_accounts = true;
  const { breakdown } = filter;
  if (breakdown) {
    json.breakdown = breakdown.raw;
    if (breakdown.rawType !== null) json.breakdown_type = breakdown.rawType;
    if (breakdown.groupTypeIndex !== null) json.breakdown_group_type_index = breakdown.groupTypeIndex;
    json.breakdown_limit = breakdown.limit;
    if (breakdown.histogramBinCount !== null) json.breakdown_histogram_bin_count = breakdown.histogramBinCount;
    if (breakdown.hideOtherAggregation) json.breakdown_hide_other_aggregation = true;
  }
  if (filter.compare) json.compare = true;
  if (filter.formula !== null) json.formula = filter.formula;
  if (filter.offset > 0) json.offset = filter.offset;
  json.smoothing_intervals = filter.smoothingIntervals;
  return json;
}
