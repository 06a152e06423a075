import { DateTime } from 'luxon';
import { ValidationError } from '../errors.js';
import { parseDate } from '../query/date-range.js';
import { parseProperties, PROPERTY_OPERATORS, type PropertyOperator } from '../query/property-filter-model.js';
import { textOf } from '../util/text.js';
import {
  BEHAVIORAL_KINDS,
  TIME_INTERVALS,
  type BehavioralEntity,
  type BehavioralFilter,
  type BehavioralKind,
  type CohortNode,
  type CountOperator,
  type TimeSpan,
} from './cohort-filter-model.js';
import { isJsonObject as isObject } from '../util/json.js';

/**
 * Parses and validates a cohort's `filters` (`{properties: {type, values}}`, PostHog's cohort
 * filter schema). Malformed input is a ValidationError on `filters`, so a cohort that is
 * stored always compiles.
 */

const ATTR = 'filters';

function invalid(detail: string): ValidationError {
  return new ValidationError(ATTR, detail);
}

function missing(kind: string, keys: string[]): ValidationError {
  return invalid(`Missing required keys for ${kind} filter: ${keys.join(', ')}`);
}

function positiveInteger(value: unknown, name: string): number {
  const number = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isInteger(number) || number <= 0) {
    throw invalid(`${name} must be a positive integer.`);
  }
  return number;
}

function timeSpan(value: unknown, interval: unknown, valueName: string, intervalName: string): TimeSpan {
  const amount = positiveInteger(value, valueName);
  if (!(TIME_INTERVALS as readonly unknown[]).includes(interval)) {
    throw invalid(`${intervalName} must be one of ${TIME_INTERVALS.join(', ')}.`);
  }
  return { value: amount, interval: interval as TimeSpan['interval'] };
}

const SPAN_SECONDS: Record<TimeSpan['interval'], number> = {
  minute: 60,
  hour: 3600,
  day: 86_400,
  week: 604_800,
  month: 2_592_000,
  year: 31_536_000,
};

function spanSeconds(span: TimeSpan): number {
  return span.value * SPAN_SECONDS[span.interval];
}

const COUNT_OPERATORS: Record<string, CountOperator> = { eq: '=', exact: '=', gte: '>=', lte: '<=', gt: '>', lt: '<' };

function countOperator(value: unknown): CountOperator {
  if (value === undefined || value === null) return '=';
  const operator = typeof value === 'string' ? COUNT_OPERATORS[value] : undefined;
  if (!operator) throw invalid('operator must be one of gte, lte, gt, lt, eq or exact.');
  return operator;
}

function entity(type: unknown, key: unknown, what: string): BehavioralEntity {
  if (type === 'actions') {
    const id = typeof key === 'string' && /^\d+$/.test(key) ? Number(key) : key;
    if (typeof id !== 'number' || !Number.isInteger(id)) throw invalid(`${what} must be an action id when its type is "actions".`);
    return { type: 'actions', actionId: id };
  }
  if (type === 'events') {
    if (typeof key !== 'string' || key === '') throw invalid(`${what} must be an event name.`);
    return { type: 'events', event: key };
  }
  throw invalid(`Event type must be 'events' or 'actions'.`);
}

/** Each period adds a countIf to the query; a hundred already covers almost two years of weeks. */
const MAX_PERIODS = 100;

function parseBehavioral(raw: Record<string, unknown>): BehavioralFilter {
  const absent = ['key', 'value', 'event_type'].filter((name) => raw[name] === undefined || raw[name] === null);
  if (absent.length > 0) throw missing('behavioral', absent);
  if (!(BEHAVIORAL_KINDS as readonly unknown[]).includes(raw.value)) {
    throw invalid(`Behavioral filter value must be one of ${BEHAVIORAL_KINDS.join(', ')}.`);
  }
  const behavior = raw.value as BehavioralKind;
  const explicitDatetime = typeof raw.explicit_datetime === 'string' && raw.explicit_datetime !== '' ? raw.explicit_datetime : null;
  if (explicitDatetime !== null && parseDate(explicitDatetime, 'UTC', DateTime.utc()) === null) {
    throw invalid(`explicit_datetime "${explicitDatetime}" is not a date.`);
  }
  const takesExplicitStart = behavior === 'performed_event' || behavior === 'performed_event_multiple';
  const window = takesExplicitStart && explicitDatetime !== null ? null : timeSpan(raw.time_value, raw.time_interval, 'time_value', 'time_interval');
  const filter: BehavioralFilter = {
    kind: 'behavioral',
    behavior,
    entity: entity(raw.event_type, raw.key, 'key'),
    window,
    explicitDatetime: takesExplicitStart ? explicitDatetime : null,
    eventFilters: parseEventFilters(raw.event_filters),
    countOperator: '=',
    operatorValue: 0,
    seqWindow: null,
    seqEntity: null,
    totalPeriods: 0,
    minPeriods: 0,
    negation: raw.negation === true,
  };
  if (behavior === 'performed_event_multiple' || behavior === 'performed_event_regularly') {
    filter.countOperator = countOperator(raw.operator);
    filter.operatorValue = positiveInteger(raw.operator_value, 'operator_value');
  }
  if (behavior === 'stopped_performing_event' || behavior === 'restarted_performing_event' || behavior === 'performed_event_sequence') {
    filter.seqWindow = timeSpan(raw.seq_time_value, raw.seq_time_interval, 'seq_time_value', 'seq_time_interval');
    if (behavior !== 'performed_event_sequence' && spanSeconds(filter.seqWindow) >= spanSeconds(window!)) {
      throw invalid('seq_time_value must be a more recent window than time_value.');
    }
  }
  if (behavior === 'performed_event_sequence') {
    filter.seqEntity = entity(raw.seq_event_type ?? raw.event_type, raw.seq_event, 'seq_event');
  }
  if (behavior === 'performed_event_regularly') {
    filter.totalPeriods = positiveInteger(raw.total_periods, 'total_periods');
    filter.minPeriods = positiveInteger(raw.min_periods, 'min_periods');
    if (filter.totalPeriods > MAX_PERIODS) throw invalid(`total_periods must be at most ${MAX_PERIODS}.`);
    if (filter.minPeriods > filter.totalPeriods) {
      throw invalid(`min_periods (${filter.minPeriods}) cannot be greater than total_periods (${filter.totalPeriods}).`);
    }
  }
  return filter;
}

function parseEventFilters(raw: unknown) {
  if (raw === undefined || raw === null) return parseProperties(null, ATTR);
  if (!Array.isArray(raw) || raw.some((item) => !isObject(item) || (item.type !== 'event' && item.type !== 'element'))) {
    throw invalid('event_filters must be a list of event or element property filters.');
  }
  return parseProperties(raw, ATTR);
}

function parsePerson(raw: Record<string, unknown>): CohortNode {
  const absent: string[] = [];
  if (typeof raw.key !== 'string' || raw.key === '') absent.push('key');
  const operator = raw.operator;
  if ((raw.value === undefined || raw.value === null) && operator !== 'is_set' && operator !== 'is_not_set') absent.push('value');
  if (operator === undefined || operator === null) absent.push('operator');
  if (absent.length > 0) throw missing('person', absent);
  if (!(PROPERTY_OPERATORS as readonly unknown[]).includes(operator)) throw invalid(`Unknown operator "${textOf(operator)}".`);
  const group = parseProperties([{ ...raw, type: 'person' }], ATTR);
  const filter = group.values[0];
  if (filter?.kind !== 'filter') throw invalid('Invalid person filter.');
  return { kind: 'person', filter: { ...filter, operator: operator as PropertyOperator } };
}

function parseCohortReference(raw: Record<string, unknown>): CohortNode {
  const id = typeof raw.value === 'string' && /^\d+$/.test(raw.value) ? Number(raw.value) : raw.value;
  if (id === undefined || id === null) throw missing('cohort', ['value']);
  if (typeof id !== 'number' || !Number.isInteger(id)) throw invalid('A cohort filter value must be a cohort id.');
  return { kind: 'cohort', cohortId: id, negation: raw.negation === true };
}

function parseNode(raw: unknown): CohortNode {
  if (!isObject(raw)) throw invalid('Each filter must be an object.');
  switch (raw.type) {
    case 'AND':
    case 'OR':
      if (!Array.isArray(raw.values)) throw invalid('A filter group needs a list of values.');
      return { kind: 'group', type: raw.type, values: raw.values.map(parseNode) };
    case 'behavioral':
      return parseBehavioral(raw);
    case 'person':
      return parsePerson(raw);
    case 'cohort':
    case 'precalculated-cohort':
    case 'static-cohort':
      return parseCohortReference(raw);
    default:
      throw invalid(`Invalid property type for cohort filters: ${JSON.stringify(raw.type ?? null)}.`);
  }
}

export function parseCohortFilters(raw: unknown): CohortNode {
  if (!isObject(raw) || !isObject(raw.properties)) throw invalid("Must contain a 'properties' key with type and values");
  const root = parseNode(raw.properties);
  if (root.kind !== 'group') throw invalid("'properties' must be an AND or OR group.");
  return root;
}
