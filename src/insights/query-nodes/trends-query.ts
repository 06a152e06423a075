import { DateTime } from 'luxon';
import { ValidationError } from '../../errors.js';
import { INTERVALS, parseDate } from '../../query/date-range.js';
import { COUNT_PER_ACTOR_MATHS, parseInsightFilter, PROPERTY_MATHS, type InsightFilter, type RawInput } from '../filter-model.js';
import { parseProperties, combineAnd, type PropertyGroup } from '../../query/property-filter-model.js';
import { parseFormula } from '../trends/formula.js';

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
  /** Where the node sits, for errors found while computing. */
  path: string;
}

type JsonObject = Record<string, unknown>;

const SUPPORTED_MATHS = new Set<string>([
  'total',
  'dau',
  'weekly_active',
  'monthly_active',
  'unique_session',
  'unique_group',
  ...PROPERTY_MATHS,
  ...COUNT_PER_ACTOR_MATHS,
]);

const PROPERTY_FILTER_TYPES = new Set(['event', 'person', 'group', 'cohort', 'precalculated-cohort', 'static-cohort', 'element', 'session']);

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
  events: 'series',
  actions: 'series',
  math: 'series',
  math_property: 'series',
  math_group_type_index: 'series',
};

/** A legacy-named validation error restated at its place in the node; anything else unchanged. */
export function errorInQuery(error: unknown, path: string): unknown {
  if (!(error instanceof ValidationError)) return error;
  const field = error.attr === null ? undefined : LEGACY_FIELD_PATHS[error.attr];
  return new ValidationError(field === undefined ? path : `${path}.${field}`, error.detail, error.code);
}

function invalid(path: string, detail: string): never {
  throw new ValidationError(path, detail);
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function optionalObject(value: unknown, path: string): JsonObject {
  if (value === undefined || value === null) return {};
  if (!isObject(value)) invalid(path, 'Must be an object.');
  return value;
}

function optionalString(value: unknown, path: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') invalid(path, 'Must be a string.');
  return value;
}

function optionalBoolean(value: unknown, path: string): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') invalid(path, 'Must be a boolean.');
  return value;
}

function optionalInteger(value: unknown, path: string, min: number, max = Number.MAX_SAFE_INTEGER): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    invalid(path, max === Number.MAX_SAFE_INTEGER ? `Must be an integer of at least ${min}.` : `Must be an integer from ${min} to ${max}.`);
  }
  return value;
}

/** Refuses a field that would change the numbers in a way the legacy runner cannot compute. */
function refuseUnless(condition: boolean, path: string, detail: string): void {
  if (!condition) invalid(path, detail);
}

/**
 * Property filters in a query node: a list or a `{type, values}` group. A filter type the
 * legacy model does not know would be dropped there, so it is refused here instead.
 */
function checkPropertyTypes(value: unknown, path: string): void {
  if (Array.isArray(value)) {
    value.forEach((item, index) => checkPropertyTypes(item, `${path}.${index}`));
    return;
  }
  if (!isObject(value)) invalid(path, 'A property filter must be an object.');
  if ((value.type === 'AND' || value.type === 'OR') && Array.isArray(value.values)) {
    value.values.forEach((item, index) => checkPropertyTypes(item, `${path}.values.${index}`));
    return;
  }
  const type = value.type ?? 'event';
  if (typeof type !== 'string' || !PROPERTY_FILTER_TYPES.has(type)) {
    invalid(`${path}.type`, `Tally cannot filter on properties of type "${String(type)}" yet.`);
  }
  if ((typeof value.key !== 'string' || value.key === '') && typeof value.key !== 'number') invalid(`${path}.key`, 'This field is required.');
}

function nodeProperties(value: unknown, path: string): PropertyGroup {
  if (value === undefined || value === null) return combineAnd();
  if (!Array.isArray(value) && !isObject(value)) invalid(path, 'Properties must be a list or a property group.');
  checkPropertyTypes(value, path);
  return parseProperties(value, path);
}

interface SeriesEntry {
  raw: RawInput;
  type: 'events' | 'actions';
  properties: PropertyGroup;
}

function seriesEntry(node: unknown, index: number, path: string): SeriesEntry {
  const at = `${path}.series.${index}`;
  if (!isObject(node)) invalid(at, 'Each series must be an object.');
  const kind = node.kind;
  if (kind === 'DataWarehouseNode') invalid(`${at}.kind`, 'Tally has no data warehouse: series must be EventsNode or ActionsNode.');
  if (kind !== 'EventsNode' && kind !== 'ActionsNode') invalid(`${at}.kind`, 'A series must be an EventsNode or an ActionsNode.');

  const raw: RawInput = { order: index };
  if (kind === 'EventsNode') {
    raw.id = optionalString(node.event, `${at}.event`);
  } else {
    const id = node.id;
    if (typeof id !== 'number' || !Number.isInteger(id)) invalid(`${at}.id`, 'An ActionsNode needs the integer id of an action.');
    raw.id = id;
  }
  const name = optionalString(node.name, `${at}.name`);
  if (name !== null && name !== '') raw.name = name;
  const customName = optionalString(node.custom_name, `${at}.custom_name`);
  if (customName !== null) raw.custom_name = customName;

  const math = optionalString(node.math, `${at}.math`);
  if (math !== null) {
    if (math === 'hogql') invalid(`${at}.math`, 'Tally cannot compute HogQL maths yet.');
    refuseUnless(SUPPORTED_MATHS.has(math), `${at}.math`, `Tally cannot compute the math "${math}" yet.`);
    raw.math = math;
  }
  const mathProperty = optionalString(node.math_property, `${at}.math_property`);
  if (math !== null && (PROPERTY_MATHS as readonly string[]).includes(math) && !mathProperty) {
    throw new ValidationError(`${at}.math_property`, 'This field is required when `math` is set to a function.', 'required');
  }
  if (mathProperty !== null) raw.math_property = mathProperty;
  const groupIndex = optionalInteger(node.math_group_type_index, `${at}.math_group_type_index`, 0, 4);
  if (math === 'unique_group' && groupIndex === null) {
    throw new ValidationError(`${at}.math_group_type_index`, 'This field is required when `math` is unique_group.', 'required');
  }
  if (groupIndex !== null) raw.math_group_type_index = groupIndex;
  const multiplier = node.math_multiplier;
  refuseUnless(multiplier === undefined || multiplier === null || multiplier === 1, `${at}.math_multiplier`, 'Tally cannot multiply series yet.');

  const properties = combineAnd(nodeProperties(node.properties, `${at}.properties`), nodeProperties(node.fixedProperties, `${at}.fixedProperties`));
  return { raw, type: kind === 'EventsNode' ? 'events' : 'actions', properties };
}

function checkDate(value: unknown, path: string, allowAll: boolean): string | null {
  const text = optionalString(value, path);
  if (text === null || text === '') return null;
  if (allowAll && text === 'all') return text;
  if (!parseDate(text, 'UTC', DateTime.now())) invalid(path, `Unable to parse date "${text}".`);
  return text;
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
  if (breakdowns !== undefined && breakdowns !== null) {
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
  if (nodes !== undefined && nodes !== null && !Array.isArray(nodes)) invalid(`${at}.formulaNodes`, 'Must be a list.');
  const list = trendsFilter.formulas;
  if (Array.isArray(list) && list.length > 0) return list.flatMap((formula, index) => checked(formula, `${at}.formulas.${index}`, null));
  if (list !== undefined && list !== null && !Array.isArray(list)) invalid(`${at}.formulas`, 'Must be a list.');
  return checked(trendsFilter.formula, `${at}.formula`, null);
}

/** Translates a TrendsQuery node found at `path` (for example `query.source`). */
export function trendsQueryToFilter(node: unknown, path: string): TrendsQueryPlan {
  if (!isObject(node)) invalid(path, 'A query must be an object.');
  if (node.kind !== 'TrendsQuery') invalid(`${path}.kind`, 'Expected a TrendsQuery.');
  if (!Array.isArray(node.series)) invalid(`${path}.series`, 'A TrendsQuery needs a list of series.');
  const series = node.series.map((item, index) => seriesEntry(item, index, path));

  const interval = optionalString(node.interval, `${path}.interval`) ?? 'day';
  if (interval === 'minute') invalid(`${path}.interval`, 'Tally has no minute buckets: use hour, day, week or month.');
  refuseUnless((INTERVALS as readonly string[]).includes(interval), `${path}.interval`, 'Interval must be one of hour, day, week, month.');
  const dateRange = optionalObject(node.dateRange, `${path}.dateRange`);
  const trendsFilter = optionalObject(node.trendsFilter, `${path}.trendsFilter`);
  const compareFilter = optionalObject(node.compareFilter, `${path}.compareFilter`);
  const compareTo = compareFilter.compare_to;
  refuseUnless(compareTo === undefined || compareTo === null, `${path}.compareFilter.compare_to`, 'Tally compares with the previous period only.');
  const sampling = node.samplingFactor;
  refuseUnless(sampling === undefined || sampling === null || sampling === 1, `${path}.samplingFactor`, 'Tally does not sample: every event is counted.');
  const aggregation = node.aggregation_group_type_index;
  refuseUnless(
    aggregation === undefined || aggregation === null,
    `${path}.aggregation_group_type_index`,
    'Aggregate trends by groups with the series math unique_group.',
  );
  const goal = node.conversionGoal;
  refuseUnless(goal === undefined || goal === null, `${path}.conversionGoal`, 'Tally cannot compute conversion goals yet.');
  const smoothing = optionalInteger(trendsFilter.smoothingIntervals, `${path}.trendsFilter.smoothingIntervals`, 1);

  const raw: RawInput = {
    insight: 'TRENDS',
    events: series.filter((entry) => entry.type === 'events').map((entry) => entry.raw),
    actions: series.filter((entry) => entry.type === 'actions').map((entry) => entry.raw),
    date_from: checkDate(dateRange.date_from, `${path}.dateRange.date_from`, true),
    date_to: checkDate(dateRange.date_to, `${path}.dateRange.date_to`, false),
    explicit_date: optionalBoolean(dateRange.explicitDate, `${path}.dateRange.explicitDate`),
    interval,
    display: optionalString(trendsFilter.display, `${path}.trendsFilter.display`) ?? undefined,
    smoothing_intervals: smoothing ?? undefined,
    compare: optionalBoolean(compareFilter.compare, `${path}.compareFilter.compare`),
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
  return { filter: { ...filter, entities, properties }, formulas: planned, path };
}
