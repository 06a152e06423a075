import { ValidationError } from '../errors.js';
import type { PropertyFilter, PropertyGroup, PropertyNode, PropertyOperator } from './property-filter-model.js';
import type { CohortSqlResolver } from './resolvers.js';
import { elementCondition } from './element-filters.js';
import { stringifyValue } from './property-values.js';
import type { SqlParams } from './sql-params.js';

/**
 * THE compiler from property filters to ClickHouse SQL (PostHog's legacy semantics). Values
 * and keys are bound parameters; the SQL text holds only column expressions and operators.
 */

/** Where the compiler reads properties from; implementations add the joins a read needs. */
export interface PropertyColumns {
  /** JSON text of the event's properties. */
  readonly eventProperties: string;
  /** JSON text of the current properties of the event's person. */
  readonly personProperties: string;
  /** The event's person id. */
  readonly personId: string;
  /** JSON text of the properties of the event's group of that type. */
  groupProperties(groupTypeIndex: number): string;
  readonly elementsChain: string;
  /** Whole-session duration in seconds of the event's session. */
  readonly sessionDuration: string;
  /** A column holding a person property's value as rawPropertyValue reads it, where one exists. */
  materializedPersonProperty?(key: string): string | undefined;
  /** A column holding an event property's value as rawPropertyValue reads it, where one exists. */
  materializedEventProperty?(key: string): string | undefined;
}

export interface PropertyCompilerContext {
  columns: PropertyColumns;
  params: SqlParams;
  cohorts: CohortSqlResolver;
}

/**
 * The text of the JSON value at `keys` of `json`: a string decoded (`a"b`, not the `a\"b` of
 * its JSON), anything else its JSON text (`80`, `true`, objects), and a missing key or JSON null
 * '' and `null` (`absent: 'text'`, as PostHog's legacy filters read them) or NULL (`absent:
 * 'null'`, as HogQL reads them). Most values are non-empty strings, which JSONExtractString
 * reads in one pass of the properties (ClickHouse computes the repeated call once); only the
 * other rows, lazily, pay for JSONExtractRaw. Measured on 10M events: a filter or breakdown on
 * this costs what a bare JSONExtractString costs, where a raw read decoded afterwards cost 15–30%
 * more.
 */
export function jsonValueText(json: string, keys: string, absent: 'text' | 'null'): string {
  const decoded = `JSONExtractString(${json}, ${keys})`;
  const other = absent === 'null' ? `nullIf(nullIf(raw_json_value, ''), 'null')` : 'raw_json_value';
  return `if(notEmpty(${decoded}), ${decoded}, arrayMap(raw_json_value -> if(startsWith(raw_json_value, '"'), '', ${other}), [JSONExtractRaw(${json}, ${keys})])[1])`;
}

/** A property's value as the text filters, breakdowns and materialized columns compare (jsonValueText, missing as ''). */
export function rawPropertyValue(json: string, key: string, params: SqlParams): string {
  return jsonValueText(json, params.add(key, 'String'), 'text');
}

/** An event property's value as rawPropertyValue reads it, from its column where the event has one. */
export function eventPropertyValue(columns: PropertyColumns, key: string, params: SqlParams): string {
  return columns.materializedEventProperty?.(key) ?? rawPropertyValue(columns.eventProperties, key, params);
}

/** A raw property value as a number: spaces removed, then toFloat64OrNull (non-numeric → NULL). */
function numericValueOf(raw: string): string {
  return `toFloat64OrNull(replaceAll(${raw}, ' ', ''))`;
}

/** Where one filter reads its properties: the JSON text, and each key's raw value. */
interface PropertySource {
  json(): string;
  raw(key: string): string;
}

function jsonSource(json: () => string, params: SqlParams): PropertySource {
  return { json, raw: (key) => rawPropertyValue(json(), key, params) };
}

/** Event properties, read by key from a materialized column where there is one. */
function eventSource(columns: PropertyColumns, params: SqlParams): PropertySource {
  return { json: () => columns.eventProperties, raw: (key) => eventPropertyValue(columns, key, params) };
}

/** Person properties, read by key from a materialized column where there is one. */
function personSource(columns: PropertyColumns, params: SqlParams): PropertySource {
  const json = () => columns.personProperties;
  return { json, raw: (key) => columns.materializedPersonProperty?.(key) ?? rawPropertyValue(json(), key, params) };
}

function boxValues(value: unknown): string[] {
  return (Array.isArray(value) ? value : [value]).map(stringifyValue);
}

const NEGATED_OPERATOR: Partial<Record<PropertyOperator, PropertyOperator>> = {
  exact: 'is_not',
  is_not: 'exact',
  icontains: 'not_icontains',
  not_icontains: 'icontains',
  regex: 'not_regex',
  not_regex: 'regex',
  is_set: 'is_not_set',
  is_not_set: 'is_set',
  gt: 'lte',
  gte: 'lt',
  lt: 'gte',
  lte: 'gt',
  is_date_after: 'is_date_before',
  is_date_before: 'is_date_after',
};

const RE2_UNSUPPORTED = /\(\?<?[=!]|\\[1-9]/;

/** ClickHouse (RE2) rejects invalid patterns at query time; PostHog makes such a clause false instead. */
export function isUsableRegex(pattern: string): boolean {
  if (RE2_UNSUPPORTED.test(pattern)) return false;
  try {
    new RegExp(pattern);
    return true;
  } catch {
    return false;
  }
}

const FALSE = '0';
const TRUE = '1';

function numericValue(value: unknown): number | null {
  const number = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  return Number.isFinite(number) ? number : null;
}

const COMPARISON: Record<'gt' | 'gte' | 'lt' | 'lte', string> = { gt: '>', gte: '>=', lt: '<', lte: '<=' };

function parsedDate(raw: string): string {
  return `coalesce(parseDateTimeBestEffortOrNull(${raw}, 'UTC'), parseDateTimeBestEffortOrNull(substring(${raw}, 1, 10), 'UTC'))`;
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/** The condition of one operator on a property. */
function propertyCondition(source: PropertySource, filter: PropertyFilter, operator: PropertyOperator, params: SqlParams): string {
  const { key, value } = filter;
  switch (operator) {
    case 'is_set':
      return `JSONHas(${source.json()}, ${params.add(key, 'String')})`;
    case 'is_not_set':
      return `NOT JSONHas(${source.json()}, ${params.add(key, 'String')})`;
    case 'exact':
      return `has(${params.add(boxValues(value), 'Array(String)')}, ${source.raw(key)})`;
    case 'is_not':
      return `NOT has(${params.add(boxValues(value), 'Array(String)')}, ${source.raw(key)})`;
    case 'icontains':
    case 'not_icontains': {
      const contains = `positionCaseInsensitiveUTF8(${source.raw(key)}, ${params.add(stringifyValue(value), 'String')}) > 0`;
      return operator === 'icontains' ? contains : `NOT (${contains})`;
    }
    case 'regex':
    case 'not_regex': {
      const pattern = stringifyValue(value);
      if (!isUsableRegex(pattern)) return FALSE;
      const matches = `match(${source.raw(key)}, ${params.add(pattern, 'String')})`;
      return operator === 'regex' ? matches : `NOT ${matches}`;
    }
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      const number = numericValue(value);
      if (number === null) return FALSE;
      return `${numericValueOf(source.raw(key))} ${COMPARISON[operator]} ${params.add(number, 'Float64')}`;
    }
    case 'is_date_exact':
    case 'is_date_after':
    case 'is_date_before':
      return dateCondition(source.raw(key), value, operator, params);
  }
}

function dateCondition(raw: string, value: unknown, operator: PropertyOperator, params: SqlParams): string {
  if (typeof value !== 'string' || value.trim() === '') return FALSE;
  const parsed = parsedDate(raw);
  const target = `parseDateTimeBestEffortOrNull(${params.add(value, 'String')}, 'UTC')`;
  const dateOnly = DATE_ONLY.test(value);
  if (operator === 'is_date_exact') {
    return `date_trunc('${dateOnly ? 'day' : 'second'}', ${parsed}) = ${target}`;
  }
  if (operator === 'is_date_after') {
    // A bare date means "after that whole day".
    return dateOnly ? `${parsed} > addSeconds(${target}, 86399)` : `${parsed} > ${target}`;
  }
  return `${parsed} < ${target}`;
}

function sessionCondition(filter: PropertyFilter, operator: PropertyOperator, columns: PropertyColumns, params: SqlParams): string {
  if (filter.key !== '$session_duration') {
    throw new ValidationError('properties', `Session property '${filter.key}' is only valid in HogQL queries.`);
  }
  const duration = numericValue(filter.value);
  if (duration === null) {
    throw new ValidationError('properties', `$session_duration value must be a number. Received '${stringifyValue(filter.value)}'`);
  }
  const sql = { gt: '>', gte: '>=', lt: '<', lte: '<=', is_not: '!=' } as Partial<Record<PropertyOperator, string>>;
  return `${columns.sessionDuration} ${sql[operator] ?? '='} ${params.add(duration, 'Float64')}`;
}

async function cohortCondition(filter: PropertyFilter, context: PropertyCompilerContext): Promise<string> {
  const cohortId = numericValue(filter.value);
  if (cohortId === null || !Number.isInteger(cohortId)) {
    throw new ValidationError('properties', `Cohort id "${stringifyValue(filter.value)}" is not an integer.`);
  }
  const member = await context.cohorts.membershipCondition(cohortId, context.columns.personId, context.params);
  return filter.negation ? `NOT (${member})` : member;
}

async function compileFilter(filter: PropertyFilter, context: PropertyCompilerContext): Promise<string> {
  const { columns, params } = context;
  if (filter.type === 'cohort') return cohortCondition(filter, context);
  if (filter.type === 'element') {
    const condition = elementCondition(filter, columns.elementsChain, params);
    return filter.negation ? `NOT (${condition})` : condition;
  }
  const operator = filter.negation ? (NEGATED_OPERATOR[filter.operator] ?? filter.operator) : filter.operator;
  const negateWhole = filter.negation && NEGATED_OPERATOR[filter.operator] === undefined;
  let condition: string;
  switch (filter.type) {
    case 'session':
      condition = sessionCondition(filter, operator, columns, params);
      break;
    case 'event':
      condition = propertyCondition(eventSource(columns, params), filter, operator, params);
      break;
    case 'person':
      condition = propertyCondition(personSource(columns, params), filter, operator, params);
      break;
    case 'group':
      condition = propertyCondition(
        jsonSource(() => columns.groupProperties(filter.groupTypeIndex ?? 0), params),
        filter,
        operator,
        params,
      );
      break;
  }
  return negateWhole ? `NOT (${condition})` : condition;
}

async function compileNode(node: PropertyNode, context: PropertyCompilerContext): Promise<string | null> {
  if (node.kind === 'filter') return compileFilter(node, context);
  const parts: string[] = [];
  for (const child of node.values) {
    const part = await compileNode(child, context);
    if (part !== null) parts.push(`(${part})`);
  }
  if (parts.length === 0) return null;
  return parts.join(node.type === 'OR' ? ' OR ' : ' AND ');
}

/**
 * Compiles a property group into one SQL condition; an empty group is `1`. Reading a column
 * through `context.columns` is what asks for its join, so call this before building FROM.
 */
export async function compilePropertyFilters(group: PropertyGroup, context: PropertyCompilerContext): Promise<string> {
  return (await compileNode(group, context)) ?? TRUE;
}
