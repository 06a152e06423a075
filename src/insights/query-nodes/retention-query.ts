import type { ProjectClock } from '../../query/date-range.js';
import type { PropertyGroup } from '../../query/property-filter-model.js';
import type { RawInput, SeriesEntity } from '../filter-model.js';
import { parseRetentionFilter, type RetentionFilter } from '../retention/retention-filter.js';
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
  refuseSampling,
  refuseUnless,
  type JsonObject,
} from './insight-node-fields.js';

/**
 * A RetentionQuery node as the legacy retention filter (what `/insights/retention/` computes).
 * PostHog's HogQL-only options that change the numbers (`minimumOccurrences` above 1,
 * `cumulative`, 24-hour windows, first-ever occurrence, a `date_from` that sets the number of
 * cohorts) are refused until the runner has them.
 */

export interface RetentionQueryPlan {
  filter: RetentionFilter;
  /** `breakdownFilter.breakdown_limit`: rows past the largest ones are summed into one "Other" row (null: every row). */
  breakdownLimit: number | null;
  /** Where the node sits, for errors found while computing. */
  path: string;
}

/** Where the legacy filter's fields live in a RetentionQuery, for errors the legacy parser or runner raise. */
const LEGACY_FIELD_PATHS: Record<string, string> = {
  target_entity: 'retentionFilter.targetEntity',
  returning_entity: 'retentionFilter.returningEntity',
  period: 'retentionFilter.period',
  total_intervals: 'retentionFilter.totalIntervals',
  retention_type: 'retentionFilter.retentionType',
  date_to: 'dateRange.date_to',
  properties: 'properties',
  breakdown: 'breakdownFilter.breakdown',
  breakdowns: 'breakdownFilter.breakdowns',
  breakdown_type: 'breakdownFilter.breakdown_type',
  breakdown_group_type_index: 'breakdownFilter.breakdown_group_type_index',
  aggregation_group_type_index: 'aggregation_group_type_index',
};

/** A legacy-named validation error restated at its place in a RetentionQuery; anything else unchanged. */
export function errorInRetentionQuery(error: unknown, path: string): unknown {
  return errorAtNodePath(error, path, LEGACY_FIELD_PATHS);
}

const PERIODS = ['Hour', 'Day', 'Week', 'Month'] as const;
const RETENTION_TYPES = ['retention_recurring', 'retention_first_time', 'retention_first_ever_occurrence'] as const;
const BREAKDOWN_TYPES = ['event', 'person', 'group'] as const;
const PAGEVIEW = { id: '$pageview', type: 'events' };

interface RetentionEntityNode {
  raw: RawInput;
  properties: PropertyGroup;
}

/** `targetEntity` / `returningEntity`: `{id, type events|actions}` (or the node `kind`), with optional properties. */
function retentionEntity(value: unknown, at: string): RetentionEntityNode | null {
  if (isAbsent(value)) return null;
  if (!isObject(value)) invalid(at, 'Must be an object with id and type.');
  const kindType = value.kind === 'ActionsNode' ? 'actions' : value.kind === 'EventsNode' ? 'events' : null;
  const type = optionalChoice(value.type, `${at}.type`, ['events', 'actions'] as const) ?? kindType ?? 'events';
  let id: string | number | null;
  if (type === 'actions') {
    const raw = typeof value.id === 'string' && /^\d+$/.test(value.id) ? Number(value.id) : value.id;
    if (typeof raw !== 'number' || !Number.isInteger(raw)) invalid(`${at}.id`, 'An action entity needs the integer id of an action.');
    id = raw;
  } else {
    if (!isAbsent(value.id) && typeof value.id !== 'string') invalid(`${at}.id`, 'An event entity needs the event name.');
    id = (value.id as string | undefined) ?? null;
  }
  const raw: RawInput = { id, type };
  const name = optionalString(value.name, `${at}.name`);
  if (name !== null && name !== '') raw.name = name;
  return { raw, properties: nodeProperties(value.properties, `${at}.properties`) };
}

function retentionFields(node: JsonObject, path: string): RawInput {
  const at = `${path}.retentionFilter`;
  if (isAbsent(node.retentionFilter)) invalid(at, 'This field is required.');
  const retention = optionalObject(node.retentionFilter, at);
  const type = optionalChoice(retention.retentionType, `${at}.retentionType`, RETENTION_TYPES);
  refuseUnless(type !== 'retention_first_ever_occurrence', `${at}.retentionType`, 'Tally computes recurring and first-time retention only.');
  const minimum = optionalInteger(retention.minimumOccurrences, `${at}.minimumOccurrences`, 1);
  refuseUnless(minimum === null || minimum === 1, `${at}.minimumOccurrences`, 'Tally counts a return on one event: minimumOccurrences must be 1.');
  refuseUnless(!optionalBoolean(retention.cumulative, `${at}.cumulative`), `${at}.cumulative`, 'Tally cannot compute cumulative retention yet.');
  const window = optionalChoice(retention.timeWindowMode, `${at}.timeWindowMode`, ['strict_calendar_dates', '24_hour_windows'] as const);
  refuseUnless(window !== '24_hour_windows', `${at}.timeWindowMode`, 'Tally counts retention in calendar periods only.');
  const brackets = retention.retentionCustomBrackets;
  refuseUnless(
    isAbsent(brackets) || (Array.isArray(brackets) && brackets.length === 0),
    `${at}.retentionCustomBrackets`,
    'Tally cannot group retention periods into brackets yet.',
  );
  const aggregation = optionalString(retention.aggregationType, `${at}.aggregationType`);
  refuseUnless(aggregation === null || aggregation === 'count', `${at}.aggregationType`, 'Tally counts actors in a retention table.');
  return {
    retention_type: type ?? undefined,
    period: optionalChoice(retention.period, `${at}.period`, PERIODS) ?? undefined,
    total_intervals: optionalInteger(retention.totalIntervals, `${at}.totalIntervals`, 1, 1000) ?? undefined,
  };
}

function breakdownFields(node: JsonObject, path: string): { raw: RawInput; limit: number | null } {
  const at = `${path}.breakdownFilter`;
  const filter = optionalObject(node.breakdownFilter, at);
  refuseUnless(
    !optionalBoolean(filter.breakdown_normalize_url, `${at}.breakdown_normalize_url`),
    `${at}.breakdown_normalize_url`,
    'Tally cannot normalize URLs in a retention breakdown.',
  );
  refuseUnless(isAbsent(filter.breakdown_histogram_bin_count), `${at}.breakdown_histogram_bin_count`, 'Tally cannot bin a retention breakdown.');
  const limit = optionalInteger(filter.breakdown_limit, `${at}.breakdown_limit`, 1);
  let property: unknown = filter.breakdown;
  let type: unknown = filter.breakdown_type;
  let groupIndex: unknown = filter.breakdown_group_type_index;
  let typePath = `${at}.breakdown_type`;
  const breakdowns = filter.breakdowns;
  if (!isAbsent(breakdowns)) {
    if (!Array.isArray(breakdowns)) invalid(`${at}.breakdowns`, 'Must be a list.');
    refuseUnless(breakdowns.length <= 1, `${at}.breakdowns`, 'Tally breaks retention down by one property at a time.');
    const [only] = breakdowns;
    if (only !== undefined) {
      refuseUnless(isAbsent(property), `${at}.breakdowns`, 'Set either breakdown or breakdowns, not both.');
      if (!isObject(only)) invalid(`${at}.breakdowns.0`, 'Must be an object.');
      property = only.property;
      type = only.type;
      groupIndex = only.group_type_index;
      typePath = `${at}.breakdowns.0.type`;
    }
  }
  if (isAbsent(property) || property === '') return { raw: {}, limit };
  if (typeof property !== 'string') invalid(`${at}.breakdown`, 'A retention breakdown is a property name.');
  const breakdownType = optionalString(type, typePath) ?? 'event';
  refuseUnless(
    (BREAKDOWN_TYPES as readonly string[]).includes(breakdownType),
    typePath,
    `Tally breaks retention down by ${BREAKDOWN_TYPES.join(', ')} properties, not "${breakdownType}".`,
  );
  const group = optionalInteger(groupIndex, `${at}.breakdown_group_type_index`, 0, 4);
  return { raw: { breakdowns: [{ property, type: breakdownType, ...(group === null ? {} : { group_type_index: group }) }] }, limit };
}

/**
 * Translates a RetentionQuery node found at `path` into the retention runner's filter, its
 * window resolved on `clock`, for the table and for the actors of its rows alike.
 */
export function retentionQueryToFilter(node: unknown, path: string, clock: ProjectClock): RetentionQueryPlan {
  if (!isObject(node)) invalid(path, 'A query must be an object.');
  if (node.kind !== 'RetentionQuery') invalid(`${path}.kind`, 'Expected a RetentionQuery.');
  const retention = retentionFields(node, path);
  const retentionFilter = node.retentionFilter as JsonObject;
  const target = retentionEntity(retentionFilter.targetEntity, `${path}.retentionFilter.targetEntity`);
  const returning = retentionEntity(retentionFilter.returningEntity, `${path}.retentionFilter.returningEntity`);
  const dateRange = optionalObject(node.dateRange, `${path}.dateRange`);
  refuseUnless(
    checkDate(dateRange.date_from, `${path}.dateRange.date_from`, true) === null,
    `${path}.dateRange.date_from`,
    'A retention table spans totalIntervals periods up to date_to: date_from is not supported.',
  );
  refuseSampling(node, path);
  const breakdown = breakdownFields(node, path);
  const properties = nodeProperties(node.properties, `${path}.properties`);

  const raw: RawInput = {
    ...retention,
    target_entity: target?.raw,
    // PostHog's RetentionQuery defaults both entities to $pageview (the legacy filter defaults the returning one to the target).
    returning_entity: returning?.raw ?? PAGEVIEW,
    date_to: checkDate(dateRange.date_to, `${path}.dateRange.date_to`, false),
    filter_test_accounts: optionalBoolean(node.filterTestAccounts, `${path}.filterTestAccounts`),
    aggregation_group_type_index: optionalInteger(node.aggregation_group_type_index, `${path}.aggregation_group_type_index`, 0, 4),
    ...breakdown.raw,
  };
  let filter: RetentionFilter;
  try {
    filter = parseRetentionFilter(raw, clock);
  } catch (error) {
    throw errorInRetentionQuery(error, path);
  }
  const withProperties = (entity: SeriesEntity, parsed: RetentionEntityNode | null): SeriesEntity =>
    parsed ? { ...entity, properties: parsed.properties } : entity;
  return {
    filter: {
      ...filter,
      target: withProperties(filter.target, target),
      returning: withProperties(filter.returning, returning),
      properties,
    },
    breakdownLimit: breakdown.limit,
    path,
  };
}
