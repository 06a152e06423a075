import { DateTime } from 'luxon';
import { ValidationError } from '../../errors.js';
import { INTERVALS, parseDate, type Interval } from '../../query/date-range.js';
import { combineAnd, parseProperties, type PropertyGroup } from '../../query/property-filter-model.js';
import { isJsonObject as isObject } from '../../util/json.js';

export { isObject };

/**
 * Readers of the fields insight query nodes share (PostHog's query schema): each checks the
 * field's shape and answers a 400 naming its dotted path from the request root, so the
 * converters to the legacy filters only translate.
 */

export type JsonObject = Record<string, unknown>;

export function invalid(path: string, detail: string): never {
  throw new ValidationError(path, detail);
}

export function isAbsent(value: unknown): boolean {
  return value === undefined || value === null;
}

export function optionalObject(value: unknown, path: string): JsonObject {
  if (isAbsent(value)) return {};
  if (!isObject(value)) invalid(path, 'Must be an object.');
  return value;
}

export function optionalString(value: unknown, path: string): string | null {
  if (isAbsent(value)) return null;
  if (typeof value !== 'string') invalid(path, 'Must be a string.');
  return value;
}

export function optionalBoolean(value: unknown, path: string): boolean {
  if (isAbsent(value)) return false;
  if (typeof value !== 'boolean') invalid(path, 'Must be a boolean.');
  return value;
}

export function optionalInteger(value: unknown, path: string, min: number, max = Number.MAX_SAFE_INTEGER): number | null {
  if (isAbsent(value)) return null;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    invalid(path, max === Number.MAX_SAFE_INTEGER ? `Must be an integer of at least ${min}.` : `Must be an integer from ${min} to ${max}.`);
  }
  return value;
}

export function optionalStringList(value: unknown, path: string): string[] {
  if (isAbsent(value)) return [];
  if (!Array.isArray(value)) invalid(path, 'Must be a list of strings.');
  value.forEach((item, index) => {
    if (typeof item !== 'string') invalid(`${path}.${index}`, 'Must be a string.');
  });
  return value as string[];
}

/** Refuses a field that would change the numbers in a way the legacy runner cannot compute. */
export function refuseUnless(condition: boolean, path: string, detail: string): void {
  if (!condition) invalid(path, detail);
}

/** A choice among `choices`, or null when absent. */
export function optionalChoice<T extends string>(value: unknown, path: string, choices: readonly T[]): T | null {
  const text = optionalString(value, path);
  if (text === null) return null;
  if (!(choices as readonly string[]).includes(text)) invalid(path, `"${text}" is not one of ${choices.join(', ')}.`);
  return text as T;
}

const PROPERTY_FILTER_TYPES = new Set(['event', 'person', 'group', 'cohort', 'precalculated-cohort', 'static-cohort', 'element', 'session']);

/**
 * Property filters in a query node: a list or a `{type, values}` group. A filter type the
 * legacy model does not know would be dropped there, so it is refused here instead.
 */
function checkPropertyTypes(value: unknown, path: string): void {
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) checkPropertyTypes(item, `${path}.${index}`);
    return;
  }
  if (!isObject(value)) invalid(path, 'A property filter must be an object.');
  if ((value.type === 'AND' || value.type === 'OR') && Array.isArray(value.values)) {
    for (const [index, item] of value.values.entries()) checkPropertyTypes(item, `${path}.values.${index}`);
    return;
  }
  const type = value.type ?? 'event';
  if (typeof type !== 'string' || !PROPERTY_FILTER_TYPES.has(type)) {
    invalid(`${path}.type`, `Tally cannot filter on properties of type "${String(type)}" yet.`);
  }
  if ((typeof value.key !== 'string' || value.key === '') && typeof value.key !== 'number') invalid(`${path}.key`, 'This field is required.');
}

/** A node's `properties` (or a series' `properties`/`fixedProperties`) as the legacy model's group. */
export function nodeProperties(value: unknown, path: string): PropertyGroup {
  if (isAbsent(value)) return combineAnd();
  if (!Array.isArray(value) && !isObject(value)) invalid(path, 'Properties must be a list or a property group.');
  checkPropertyTypes(value, path);
  return parseProperties(value, path);
}

/** A `dateRange` bound: null when absent or empty; `all` only where `allowAll`. */
export function checkDate(value: unknown, path: string, allowAll: boolean): string | null {
  const text = optionalString(value, path);
  if (text === null || text === '') return null;
  if (allowAll && text === 'all') return text;
  if (!parseDate(text, 'UTC', DateTime.now())) invalid(path, `Unable to parse date "${text}".`);
  return text;
}

/** `interval`, `day` when absent; PostHog's `minute` has no buckets in Tally. */
export function nodeInterval(value: unknown, path: string): Interval {
  const interval = optionalString(value, path) ?? 'day';
  if (interval === 'minute') invalid(path, 'Tally has no minute buckets: use hour, day, week or month.');
  refuseUnless((INTERVALS as readonly string[]).includes(interval), path, 'Interval must be one of hour, day, week, month.');
  return interval as Interval;
}

/** Fields Tally computes exactly, so only their neutral values are accepted. */
export function refuseSampling(node: JsonObject, path: string): void {
  const sampling = node.samplingFactor;
  refuseUnless(isAbsent(sampling) || sampling === 1, `${path}.samplingFactor`, 'Tally does not sample: every event is counted.');
}

/** An insight whose legacy runner counts persons only. */
export function refuseGroupAggregation(node: JsonObject, path: string, detail: string): void {
  refuseUnless(isAbsent(node.aggregation_group_type_index), `${path}.aggregation_group_type_index`, detail);
}

/**
 * A validation error the legacy parser or runner raised under a legacy field name, restated at
 * that field's place in the node (`fieldPaths`: legacy name → path in the node); an error of
 * a field the node does not have names the node itself. Anything else passes unchanged.
 */
export function errorAtNodePath(error: unknown, path: string, fieldPaths: Readonly<Record<string, string>>): unknown {
  if (!(error instanceof ValidationError)) return error;
  const field = error.attr === null ? undefined : fieldPaths[error.attr];
  return new ValidationError(field === undefined ? path : `${path}.${field}`, error.detail, error.code);
}
