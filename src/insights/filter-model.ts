import { ValidationError } from '../errors.js';
import { integerOrNull } from '../util/safe-integer.js';
import { isJsonObject } from '../util/json.js';
import { decodeJsonParam, parseProperties, type PropertyGroup } from '../query/property-filter-model.js';
import { textOf } from '../util/text.js';
import { isTruthyFlag } from '../util/request-params.js';
import { INTERVALS, type DateRangeInput, type Interval } from '../query/date-range.js';

/**
 * The one parsed filter model of insight requests (PostHog's legacy `Filter`): series entities,
 * property filters and groups, dates, interval, breakdown and display options. Raw JSON bodies
 * and JSON-encoded query strings become typed objects here; bad input is a ValidationError
 * naming the field.
 */

export const PROPERTY_MATHS = ['sum', 'avg', 'min', 'max', 'median', 'p75', 'p90', 'p95', 'p99'] as const;
export const COUNT_PER_ACTOR_MATHS = [
  'avg_count_per_actor',
  'min_count_per_actor',
  'max_count_per_actor',
  'median_count_per_actor',
  'p75_count_per_actor',
  'p90_count_per_actor',
  'p95_count_per_actor',
  'p99_count_per_actor',
] as const;
export type PropertyMath = (typeof PROPERTY_MATHS)[number];
export type CountPerActorMath = (typeof COUNT_PER_ACTOR_MATHS)[number];

/** The math a series computes; anything PostHog's legacy engine does not know counts events. */
export type SeriesMath =
  | { kind: 'total' }
  | { kind: 'dau' }
  | { kind: 'active'; windowDays: 7 | 30 }
  | { kind: 'unique_group'; groupTypeIndex: number }
  | { kind: 'unique_session' }
  | { kind: 'property'; fn: PropertyMath; property: string }
  | { kind: 'count_per_actor'; fn: CountPerActorMath; groupTypeIndex: number | null };

export interface SeriesEntity {
  type: 'events' | 'actions';
  /** Event name (null = all events) or action id. */
  id: string | number | null;
  order: number | null;
  /** Events: the name sent or the event name; actions: replaced by the action's name when resolved. */
  name: string;
  customName: string | null;
  /** The math as sent (echoed back), and what it means. */
  mathName: string | null;
  math: SeriesMath;
  mathProperty: string | null;
  mathGroupTypeIndex: number | null;
  properties: PropertyGroup;
  /** Position after sorting; formula letters follow it. */
  index: number;
}

export const NON_TIME_SERIES_DISPLAYS = ['ActionsTable', 'ActionsPie', 'ActionsBarValue', 'WorldMap', 'BoldNumber'];
export const CUMULATIVE_DISPLAY = 'ActionsLineGraphCumulative';

export type BreakdownType = 'event' | 'person' | 'group' | 'session' | 'cohort';

export interface Breakdown {
  type: BreakdownType;
  /** Property key for event/person/group/session breakdowns. */
  property: string;
  /** Cohort ids (or `all`) for cohort breakdowns. */
  cohorts: Array<number | 'all'>;
  groupTypeIndex: number | null;
  limit: number;
  histogramBinCount: number | null;
  hideOtherAggregation: boolean;
  normalizeUrl: boolean;
  /** The breakdown value as sent, for the filter echo. */
  raw: unknown;
  /** breakdown_type as sent (null when absent), for the filter echo. */
  rawType: string | null;
}

export interface InsightFilter {
  entities: SeriesEntity[];
  properties: PropertyGroup;
  filterTestAccounts: boolean;
  dates: DateRangeInput;
  display: string;
  breakdown: Breakdown | null;
  /**
   * The formula as sent, null when absent or blank. Unlike PostHog, which strips characters
   * outside its alphabet (so `'A'` meant `A`), the trend parses it as is and rejects them.
   */
  formula: string | null;
  compare: boolean;
  smoothingIntervals: number;
  /** Breakdown-value pagination offset. */
  offset: number;
}

export type RawInput = Record<string, unknown>;

/**
 * PostHog's Filter(request) merge: body keys override query-string keys, except `properties`,
 * where the query string wins.
 */
export function mergeRequestInput(query: RawInput, body: unknown): RawInput {
  const bodyObject = body && typeof body === 'object' && !Array.isArray(body) ? (body as RawInput) : {};
  const merged: RawInput = { ...query, ...bodyObject };
  if (query.properties !== undefined) merged.properties = query.properties;
  return merged;
}

function optionalString(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  return textOf(value);
}

/** Insight filters read their flags as PostHog's `str_to_bool` does; the filter parsers of each kind take the reader from here. */

function groupTypeIndex(value: unknown, attr: string, required: boolean): number | null {
  if (value === undefined || value === null || value === '') {
    if (required) throw new ValidationError(attr, 'This field is required.', 'required');
    return null;
  }
  const index = integerOrNull(value);
  if (index === null || index < 0 || index > 4) {
    throw new ValidationError(attr, 'This field must be a group type index between 0 and 4.');
  }
  return index;
}

// ---------------------------------------------------------------------------------------------
// Series

function parseMath(raw: Record<string, unknown>, mathProperty: string | null, mathGroupIndex: unknown): SeriesMath {
  const math = raw.math;
  if (math === 'hogql') throw new ValidationError('math', 'HogQL math is not supported.');
  if (math === 'dau') return { kind: 'dau' };
  if (math === 'weekly_active') return { kind: 'active', windowDays: 7 };
  if (math === 'monthly_active') return { kind: 'active', windowDays: 30 };
  if (math === 'unique_session') return { kind: 'unique_session' };
  if (math === 'unique_group') {
    return { kind: 'unique_group', groupTypeIndex: groupTypeIndex(mathGroupIndex, 'math_group_type_index', true)! };
  }
  if ((PROPERTY_MATHS as readonly unknown[]).includes(math)) {
    if (!mathProperty) {
      throw new ValidationError('math_property', 'This field is required when `math` is set to a function.', 'required');
    }
    return { kind: 'property', fn: math as PropertyMath, property: mathProperty };
  }
  if ((COUNT_PER_ACTOR_MATHS as readonly unknown[]).includes(math)) {
    return {
      kind: 'count_per_actor',
      fn: math as CountPerActorMath,
      groupTypeIndex: groupTypeIndex(mathGroupIndex, 'math_group_type_index', false),
    };
  }
  return { kind: 'total' };
}

function parseEntity(raw: unknown, type: 'events' | 'actions', attr: string): Omit<SeriesEntity, 'index'> {
  if (!isJsonObject(raw)) throw new ValidationError(attr, `Each item of "${attr}" must be an object.`);
  let id: string | number | null;
  if (type === 'actions') {
    id = integerOrNull(raw.id);
    if (id === null) throw new ValidationError(attr, 'An action needs an integer "id".');
  } else {
    id = raw.id === undefined || raw.id === null ? null : textOf(raw.id);
  }
  const mathProperty = optionalString(raw.math_property);
  const customName = typeof raw.custom_name === 'string' && raw.custom_name.trim() !== '' ? raw.custom_name.trim() : null;
  const sentName = typeof raw.name === 'string' && raw.name !== '' ? raw.name : null;
  const math = parseMath(raw, mathProperty, raw.math_group_type_index);
  return {
    type,
    id,
    order: integerOrNull(raw.order),
    name: sentName ?? (id === null ? 'All events' : String(id)),
    customName,
    mathName: typeof raw.math === 'string' ? raw.math : null,
    math,
    mathProperty,
    mathGroupTypeIndex: groupTypeIndex(raw.math_group_type_index, 'math_group_type_index', false),
    properties: parseProperties(raw.properties ?? null, attr),
  };
}

function parseEntityList(value: unknown, type: 'events' | 'actions'): Omit<SeriesEntity, 'index'>[] {
  const decoded = decodeJsonParam(value, type);
  if (decoded === undefined || decoded === null || decoded === '') return [];
  if (!Array.isArray(decoded)) throw new ValidationError(type, `"${type}" must be a list.`);
  return decoded.map((item) => parseEntity(item, type, type));
}

/** Actions first, then events, stably sorted by `order` (absent — or 0, as in PostHog — sorts as -1). */
/**
 * One entity sent as its own field (`target_entity`, `funnel_correlation_person_entity`): a JSON
 * object with `id` and `type` (events or actions). Errors name that field; `notAnObject` is the
 * detail PostHog gives when the value is not an object.
 */
export function parseEntityParam(value: unknown, attr: string, notAnObject: string): SeriesEntity {
  const decoded = decodeJsonParam(value, attr);
  if (!isJsonObject(decoded)) throw new ValidationError(attr, notAnObject);
  const type = decoded.type ?? 'events';
  if (type !== 'events' && type !== 'actions') throw new ValidationError(attr, `"${attr}" type must be events or actions.`);
  try {
    return parseEntities({ [type]: [decoded] })[0]!;
  } catch (error) {
    // The entity parser names the list it reads; here the entity is its own field.
    if (error instanceof ValidationError) throw new ValidationError(attr, error.detail);
    throw error;
  }
}

export function parseEntities(input: RawInput): SeriesEntity[] {
  const entities = [...parseEntityList(input.actions, 'actions'), ...parseEntityList(input.events, 'events')];
  return entities
    .map((entity, position) => ({ entity, position }))
    .sort((a, b) => (a.entity.order || -1) - (b.entity.order || -1) || a.position - b.position)
    .map(({ entity }, index) => ({ ...entity, index }));
}

// ---------------------------------------------------------------------------------------------
// Dates, breakdown and the rest

function parseInterval(value: unknown): Interval {
  if (value === undefined || value === null || value === '') return 'day';
  const text = textOf(value).toLowerCase();
  if (text === 'minute') return 'hour';
  if ((INTERVALS as readonly string[]).includes(text)) return text as Interval;
  throw new ValidationError('interval', `Interval "${textOf(value)}" is not one of hour, day, week, month.`);
}

function parseDateParam(value: unknown, attr: string): string | null {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string') throw new ValidationError(attr, `${attr} must be a string.`);
  return value;
}

const BREAKDOWN_TYPES: BreakdownType[] = ['event', 'person', 'group', 'session', 'cohort'];

function parseCohortBreakdown(value: unknown): Array<number | 'all'> {
  const items = Array.isArray(value) ? value : [value];
  return items.map((item) => {
    if (item === 'all') return 'all';
    const id = integerOrNull(item);
    if (id === null) throw new ValidationError('breakdown', 'A cohort breakdown takes cohort ids or "all".');
    return id;
  });
}

function parseBreakdown(input: RawInput, display: string): Breakdown | null {
  const raw = input.breakdown;
  if (raw === undefined || raw === null || raw === '') return null;
  // As PostHog: a JSON-looking query value is decoded (`[1,2]`), anything else stays a string.
  let value: unknown = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch {
      value = raw;
    }
  }
  if (Array.isArray(value) && value.length === 0) return null;
  const rawType = optionalString(input.breakdown_type);
  const type = (rawType ?? 'event') as BreakdownType;
  if (rawType === 'hogql') throw new ValidationError('breakdown_type', 'HogQL breakdowns are not supported.');
  if (!BREAKDOWN_TYPES.includes(type)) {
    throw new ValidationError('breakdown_type', `Breakdown type "${rawType}" is not one of ${BREAKDOWN_TYPES.join(', ')}.`);
  }
  let property = '';
  let cohorts: Array<number | 'all'> = [];
  if (type === 'cohort') cohorts = parseCohortBreakdown(value);
  else if (Array.isArray(value) || isJsonObject(value)) {
    throw new ValidationError('breakdown', 'A list breakdown needs breakdown_type "cohort".');
  } else property = typeof raw === 'string' ? raw : textOf(value);
  if (type === 'session' && property !== '$session_duration') {
    throw new ValidationError('breakdown', `Invalid breakdown "${property}" for breakdown type "session"`);
  }
  const limit = integerOrNull(input.breakdown_limit);
  const bins = integerOrNull(input.breakdown_histogram_bin_count);
  return {
    type,
    property,
    cohorts,
    groupTypeIndex: groupTypeIndex(input.breakdown_group_type_index, 'breakdown_group_type_index', type === 'group'),
    limit: limit !== null && limit > 0 ? limit : display === 'WorldMap' ? 300 : 25,
    histogramBinCount: bins !== null && bins > 0 && type !== 'cohort' ? bins : null,
    hideOtherAggregation: isTruthyFlag(input.breakdown_hide_other_aggregation),
    normalizeUrl: isTruthyFlag(input.breakdown_normalize_url),
    raw: value,
    rawType,
  };
}

function parseFormula(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw new ValidationError('formula', 'A formula is text, such as "A + B".');
  return value.trim() !== '' ? value : null;
}

function parseSmoothing(value: unknown): number {
  if (value === undefined || value === null || value === '') return 1;
  const intervals = integerOrNull(value);
  if (intervals === null || intervals < 1) {
    throw new ValidationError('smoothing_intervals', 'Smoothing intervals must be an integer of at least 1.');
  }
  return intervals;
}

/** What the trend endpoint computes for a request: trends, or the stickiness or lifecycle PostHog routes there. */
export type TrendEndpointInsight = 'TRENDS' | 'STICKINESS' | 'LIFECYCLE';

/** PostHog's dispatch: stickiness by `insight` or `shown_as` first, then lifecycle the same way, else trends. */
export function trendEndpointInsight(input: RawInput): TrendEndpointInsight {
  const insight = optionalString(input.insight)?.toUpperCase();
  const shownAs = optionalString(input.shown_as);
  if (insight === 'STICKINESS' || shownAs === 'Stickiness') return 'STICKINESS';
  if (insight === 'LIFECYCLE' || shownAs === 'Lifecycle') return 'LIFECYCLE';
  return 'TRENDS';
}

/**
 * Parses a trend-style insight request (merged query string and body) into the filter model.
 * Stickiness and lifecycle requests have runners of their own, which read it without `insight`
 * and `shown_as`.
 */
export function parseInsightFilter(input: RawInput): InsightFilter {
  const shownAs = optionalString(input.shown_as);
  if (trendEndpointInsight(input) !== 'TRENDS' || (shownAs && shownAs !== 'Volume')) {
    throw new ValidationError('insight', 'Only trends (Volume) are served by this endpoint.');
  }
  const display = optionalString(input.display) ?? 'ActionsLineGraph';
  const offset = integerOrNull(input.offset);
  return {
    entities: parseEntities(input),
    properties: parseProperties(input.properties ?? null),
    filterTestAccounts: input.filter_test_accounts === true || input.filter_test_accounts === 'true',
    dates: {
      dateFrom: parseDateParam(input.date_from, 'date_from'),
      dateTo: parseDateParam(input.date_to, 'date_to'),
      interval: parseInterval(input.interval),
      explicitDate: isTruthyFlag(input.explicit_date),
    },
    display,
    breakdown: parseBreakdown(input, display),
    formula: parseFormula(input.formula),
    compare: isTruthyFlag(input.compare),
    smoothingIntervals: parseSmoothing(input.smoothing_intervals),
    offset: offset !== null && offset > 0 ? offset : 0,
  };
}

export function isTimeSeries(filter: Pick<InsightFilter, 'display'>): boolean {
  return !NON_TIME_SERIES_DISPLAYS.includes(filter.display);
}

/** BoldNumber shows one number per series: PostHog ignores the breakdown there. */
export function effectiveBreakdown(filter: Pick<InsightFilter, 'display' | 'breakdown'>): Breakdown | null {
  return filter.display === 'BoldNumber' ? null : filter.breakdown;
}
