import { ValidationError } from '../../errors.js';
import { combineAnd } from '../../query/property-filter-model.js';
import type { RawInput, SeriesEntity } from '../filter-model.js';
import { parseExclusions, type FunnelExclusion } from '../funnels/funnel-exclusions.js';
import { FUNNEL_ORDER_TYPES, FUNNEL_VIZ_TYPES, parseFunnelFilter, type FunnelFilter } from '../funnels/funnel-filter.js';
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
  optionalString,
  refuseSampling,
  refuseUnless,
  type JsonObject,
} from './insight-node-fields.js';
import { legacySeriesLists, nodeSeries } from './series-nodes.js';

/**
 * A FunnelsQuery node (PostHog's query schema) as the legacy funnel filter, so the funnel runner
 * behind `/insights/funnel/` computes it: every field that changes the numbers is translated or
 * refused with a 400 naming its dotted path from the request root; display-only fields
 * (`layout`, `funnelStepReference`, `hiddenLegendBreakdowns`, `resultCustomizations`,
 * `goalLines`, `showValuesOnSeries`, `useUdf`, …) are accepted and ignored.
 */

/** Where the legacy filter's fields live in a FunnelsQuery, for errors the legacy parser or runner raise. */
const LEGACY_FIELD_PATHS: Readonly<Record<string, string>> = {
  events: 'series',
  actions: 'series',
  date_from: 'dateRange.date_from',
  date_to: 'dateRange.date_to',
  interval: 'interval',
  properties: 'properties',
  filter_test_accounts: 'filterTestAccounts',
  aggregation_group_type_index: 'aggregation_group_type_index',
  funnel_order_type: 'funnelsFilter.funnelOrderType',
  funnel_viz_type: 'funnelsFilter.funnelVizType',
  funnel_window_interval: 'funnelsFilter.funnelWindowInterval',
  funnel_window_interval_unit: 'funnelsFilter.funnelWindowIntervalUnit',
  funnel_from_step: 'funnelsFilter.funnelFromStep',
  funnel_to_step: 'funnelsFilter.funnelToStep',
  bin_count: 'funnelsFilter.binCount',
  exclusions: 'funnelsFilter.exclusions',
  breakdown_attribution_type: 'funnelsFilter.breakdownAttributionType',
  breakdown_attribution_value: 'funnelsFilter.breakdownAttributionValue',
  breakdown: 'breakdownFilter.breakdown',
  breakdowns: 'breakdownFilter.breakdowns',
  breakdown_type: 'breakdownFilter.breakdown_type',
  breakdown_limit: 'breakdownFilter.breakdown_limit',
  breakdown_group_type_index: 'breakdownFilter.breakdown_group_type_index',
};

/**
 * A validation error of the funnel parser or runner (legacy field names) restated at its place in
 * the FunnelsQuery at `path`; anything else unchanged. Runner errors (an unknown action or
 * cohort) are named here too.
 */
export function funnelErrorInQuery(error: unknown, path: string): unknown {
  return errorAtNodePath(error, path, LEGACY_FIELD_PATHS);
}

/** PostHog's window units; a month is 31 days, as in its funnel engine. */
const WINDOW_UNITS = ['second', 'minute', 'hour', 'day', 'week', 'month'] as const;
const ATTRIBUTION_TYPES = ['first_touch', 'last_touch', 'all_events', 'step'] as const;
const BREAKDOWN_TYPES = ['event', 'person', 'group', 'cohort'] as const;
/** Step maths that match only an actor's first event: PostHog's HogQL funnels alone have them. */
const FIRST_TIME_MATHS = new Set(['first_time_for_user', 'first_time_for_user_with_filters', 'first_matching_event_for_user']);

/**
 * Funnels count actors, so a series' math changes nothing, except the first-time maths and
 * HogQL; `optionalInFunnel` steps are PostHog's HogQL funnels' own.
 */
function checkFunnelSeries(node: JsonObject, path: string): void {
  if (!Array.isArray(node.series)) return;
  node.series.forEach((item, index) => {
    if (!isObject(item)) return;
    const at = `${path}.series.${index}`;
    const math = optionalString(item.math, `${at}.math`);
    if (math === 'hogql') invalid(`${at}.math`, 'Tally cannot compute HogQL maths yet.');
    refuseUnless(math === null || !FIRST_TIME_MATHS.has(math), `${at}.math`, `Tally cannot match only each actor's first event ("${math}") yet.`);
    refuseUnless(
      !optionalBoolean(item.optionalInFunnel, `${at}.optionalInFunnel`),
      `${at}.optionalInFunnel`,
      'Tally cannot compute optional funnel steps yet.',
    );
  });
}

/**
 * The step range of trends and time to convert, checked as PostHog checks it whatever the
 * visualization: `funnelFromStep` up to the second-to-last step, `funnelToStep` from the second
 * step to the last, and the first before the second.
 */
function stepRange(filter: JsonObject, steps: number, at: string): RawInput {
  const last = steps - 1;
  const from = optionalInteger(filter.funnelFromStep, `${at}.funnelFromStep`, 0);
  const to = optionalInteger(filter.funnelToStep, `${at}.funnelToStep`, 0);
  refuseUnless(from === null || from <= last - 1, `${at}.funnelFromStep`, `funnelFromStep is out of bounds. It must be between 0 and ${last - 1}.`);
  refuseUnless(to === null || (to >= 1 && to <= last), `${at}.funnelToStep`, `funnelToStep is out of bounds. It must be between 1 and ${last}.`);
  refuseUnless(
    from === null || to === null || from < to,
    `${at}.funnelToStep`,
    'Funnel step range is invalid. funnelToStep should be greater than funnelFromStep.',
  );
  return { funnel_from_step: from ?? undefined, funnel_to_step: to ?? undefined };
}

function funnelsFilterFields(filter: JsonObject, steps: number, at: string): RawInput {
  const aggregateBy = optionalString(filter.funnelAggregateByHogQL, `${at}.funnelAggregateByHogQL`);
  refuseUnless(
    aggregateBy === null || aggregateBy === '' || aggregateBy === 'person_id',
    `${at}.funnelAggregateByHogQL`,
    'Tally cannot aggregate funnels by a HogQL expression yet: use aggregation_group_type_index for groups.',
  );
  const attribution = optionalChoice(filter.breakdownAttributionType, `${at}.breakdownAttributionType`, ATTRIBUTION_TYPES);
  const attributionValue = optionalInteger(filter.breakdownAttributionValue, `${at}.breakdownAttributionValue`, 0);
  return {
    funnel_order_type: optionalChoice(filter.funnelOrderType, `${at}.funnelOrderType`, FUNNEL_ORDER_TYPES) ?? undefined,
    funnel_viz_type: optionalChoice(filter.funnelVizType, `${at}.funnelVizType`, FUNNEL_VIZ_TYPES) ?? 'steps',
    funnel_window_interval: optionalInteger(filter.funnelWindowInterval, `${at}.funnelWindowInterval`, 1) ?? undefined,
    funnel_window_interval_unit: optionalChoice(filter.funnelWindowIntervalUnit, `${at}.funnelWindowIntervalUnit`, WINDOW_UNITS) ?? undefined,
    bin_count: optionalInteger(filter.binCount, `${at}.binCount`, 1) ?? undefined,
    breakdown_attribution_type: attribution ?? undefined,
    // Only step attribution reads a value: beside another type it changes nothing.
    breakdown_attribution_value: attribution === 'step' ? (attributionValue ?? undefined) : undefined,
    ...stepRange(filter, steps, at),
  };
}

/** The legacy multi-property form `breakdowns: [{property, type}]`: one type for every property. */
function multiBreakdown(list: unknown[], at: string): { breakdown: string[]; type: string; groupTypeIndex: number | null } {
  const properties: string[] = [];
  let type: string | null = null;
  let groupTypeIndex: number | null = null;
  list.forEach((item, index) => {
    const itemAt = `${at}.${index}`;
    if (!isObject(item)) invalid(itemAt, 'Must be an object.');
    const property = optionalString(item.property, `${itemAt}.property`);
    if (property === null || property === '') throw new ValidationError(`${itemAt}.property`, 'This field is required.', 'required');
    const itemType = optionalChoice(item.type, `${itemAt}.type`, ['event', 'person', 'group'] as const) ?? 'event';
    refuseUnless(type === null || itemType === type, `${itemAt}.type`, 'A funnel breaks down by properties of one type.');
    refuseUnless(
      !optionalBoolean(item.normalize_url, `${itemAt}.normalize_url`),
      `${itemAt}.normalize_url`,
      'Tally cannot normalize URLs in funnel breakdowns yet.',
    );
    type = itemType;
    groupTypeIndex = optionalInteger(item.group_type_index, `${itemAt}.group_type_index`, 0, 4) ?? groupTypeIndex;
    properties.push(property);
  });
  if (type === 'group' && properties.length > 1) invalid(at, 'A group breakdown takes one property.');
  return { breakdown: properties, type: type ?? 'event', groupTypeIndex };
}

/**
 * `breakdownFilter`: one breakdown (a property, several properties, or cohorts), or the
 * `breakdowns` list of properties. Funnels ignore the histogram and Other-hiding options, as
 * PostHog's do.
 */
function breakdownFields(node: JsonObject, path: string): RawInput {
  const at = `${path}.breakdownFilter`;
  const filter = optionalObject(node.breakdownFilter, at);
  refuseUnless(
    !optionalBoolean(filter.breakdown_normalize_url, `${at}.breakdown_normalize_url`),
    `${at}.breakdown_normalize_url`,
    'Tally cannot normalize URLs in funnel breakdowns yet.',
  );
  optionalBoolean(filter.breakdown_hide_other_aggregation, `${at}.breakdown_hide_other_aggregation`);
  const limit = optionalInteger(filter.breakdown_limit, `${at}.breakdown_limit`, 1) ?? undefined;
  const breakdowns = filter.breakdowns;
  if (!isAbsent(breakdowns)) {
    if (!Array.isArray(breakdowns)) invalid(`${at}.breakdowns`, 'Must be a list.');
    if (breakdowns.length > 0) {
      refuseUnless(isAbsent(filter.breakdown) || filter.breakdown === '', `${at}.breakdowns`, 'Set either breakdown or breakdowns, not both.');
      const multi = multiBreakdown(breakdowns, `${at}.breakdowns`);
      return {
        breakdown: multi.breakdown,
        breakdown_type: multi.type,
        breakdown_group_type_index: multi.groupTypeIndex ?? undefined,
        breakdown_limit: limit,
      };
    }
  }
  const breakdown = filter.breakdown;
  if (isAbsent(breakdown) || breakdown === '') return {};
  if (typeof breakdown !== 'string' && typeof breakdown !== 'number' && !Array.isArray(breakdown)) {
    invalid(`${at}.breakdown`, 'A breakdown is a property name, a list of them, or cohort ids for a cohort breakdown.');
  }
  const type = optionalString(filter.breakdown_type, `${at}.breakdown_type`);
  if (type === 'hogql') invalid(`${at}.breakdown_type`, 'Tally cannot break funnels down by HogQL expressions yet.');
  refuseUnless(
    type === null || (BREAKDOWN_TYPES as readonly string[]).includes(type),
    `${at}.breakdown_type`,
    `Tally breaks funnels down by ${BREAKDOWN_TYPES.join(', ')} only.`,
  );
  return {
    breakdown,
    breakdown_type: type ?? undefined,
    breakdown_group_type_index: optionalInteger(filter.breakdown_group_type_index, `${at}.breakdown_group_type_index`, 0, 4) ?? undefined,
    breakdown_limit: limit,
  };
}

/**
 * `funnelsFilter.exclusions`: FunnelExclusionEventsNode / FunnelExclusionActionsNode, each with
 * the step range it covers, validated as the legacy filter validates them (against the steps'
 * own property filters) and named by their index.
 */
function exclusions(filter: JsonObject, steps: SeriesEntity[], unordered: boolean, at: string): FunnelExclusion[] {
  const list = filter.exclusions;
  if (isAbsent(list)) return [];
  if (!Array.isArray(list)) invalid(at, 'Must be a list.');
  return list.map((item, index) => {
    const itemAt = `${at}.${index}`;
    if (!isObject(item)) invalid(itemAt, 'Each exclusion must be an object.');
    const kind = item.kind ?? 'EventsNode';
    if (kind !== 'EventsNode' && kind !== 'ActionsNode') invalid(`${itemAt}.kind`, 'An exclusion is an EventsNode or an ActionsNode.');
    const raw: RawInput = { type: kind === 'EventsNode' ? 'events' : 'actions' };
    if (kind === 'EventsNode') {
      raw.id = optionalString(item.event, `${itemAt}.event`);
    } else {
      if (typeof item.id !== 'number' || !Number.isInteger(item.id)) invalid(`${itemAt}.id`, 'An ActionsNode needs the integer id of an action.');
      raw.id = item.id;
    }
    for (const field of ['funnelFromStep', 'funnelToStep']) {
      if (isAbsent(item[field])) throw new ValidationError(`${itemAt}.${field}`, 'This field is required.', 'required');
    }
    raw.funnel_from_step = optionalInteger(item.funnelFromStep, `${itemAt}.funnelFromStep`, 0);
    raw.funnel_to_step = optionalInteger(item.funnelToStep, `${itemAt}.funnelToStep`, 0);
    const properties = nodeProperties(item.properties, `${itemAt}.properties`);
    const fixed = nodeProperties(item.fixedProperties, `${itemAt}.fixedProperties`);
    raw.properties = isAbsent(item.properties) ? null : item.properties;
    let parsed: FunnelExclusion;
    try {
      [parsed] = parseExclusions({ exclusions: [raw] }, steps, unordered) as [FunnelExclusion];
    } catch (error) {
      if (error instanceof ValidationError) throw new ValidationError(itemAt, error.detail, error.code);
      throw error;
    }
    return { ...parsed, entity: { ...parsed.entity, properties: combineAnd(properties, fixed) } };
  });
}

/**
 * Translates the FunnelsQuery found at `path` (`query`, `query.source`, or the source of a
 * FunnelsActorsQuery) to the typed filter the funnel runner computes; errors name the node's
 * fields. What the funnel runner answers for it is `/insights/funnel/`'s answer to the same
 * question; actors queries select from the same filter.
 */
export function funnelsQueryToFilter(node: unknown, path: string): FunnelFilter {
  if (!isObject(node)) invalid(path, 'A query must be an object.');
  if (node.kind !== 'FunnelsQuery') invalid(`${path}.kind`, 'Expected a FunnelsQuery.');
  checkFunnelSeries(node, path);
  const series = nodeSeries(node, path, 'ignored');
  refuseUnless(series.length >= 2, `${path}.series`, 'A funnel needs at least two steps.');
  refuseSampling(node, path);
  const dateRange = optionalObject(node.dateRange, `${path}.dateRange`);
  const funnelsFilter = optionalObject(node.funnelsFilter, `${path}.funnelsFilter`);

  const raw: RawInput = {
    ...legacySeriesLists(series),
    date_from: checkDate(dateRange.date_from, `${path}.dateRange.date_from`, true),
    date_to: checkDate(dateRange.date_to, `${path}.dateRange.date_to`, false),
    explicit_date: optionalBoolean(dateRange.explicitDate, `${path}.dateRange.explicitDate`),
    interval: nodeInterval(node.interval, `${path}.interval`),
    filter_test_accounts: optionalBoolean(node.filterTestAccounts, `${path}.filterTestAccounts`),
    aggregation_group_type_index: optionalInteger(node.aggregation_group_type_index, `${path}.aggregation_group_type_index`, 0, 4) ?? undefined,
    ...funnelsFilterFields(funnelsFilter, series.length, `${path}.funnelsFilter`),
    ...breakdownFields(node, path),
  };
  const properties = nodeProperties(node.properties, `${path}.properties`);

  let filter: FunnelFilter;
  try {
    filter = parseFunnelFilter(raw);
  } catch (error) {
    throw funnelErrorInQuery(error, path);
  }
  // Each series carries its index as `order`, so the parsed steps are in series order.
  const steps = filter.steps.map((step, index) => ({ ...step, properties: series[index]!.properties }));
  return {
    ...filter,
    steps,
    properties,
    exclusions: exclusions(funnelsFilter, steps, filter.orderType === 'unordered', `${path}.funnelsFilter.exclusions`),
  };
}
