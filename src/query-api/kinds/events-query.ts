import type { DateTime } from 'luxon';
import { ValidationError } from '../../errors.js';
import type { Expr, OrderExpr, SelectQuery } from '../../hogql/ast.js';
import { emptySelect } from '../../hogql/ast.js';
import { isAggregate } from '../../hogql/functions.js';
import { printHogQL } from '../../hogql/hogql-text.js';
import { parseExpr, parseOrderExpr } from '../../hogql/parser.js';
import { printSelect } from '../../hogql/printer.js';
import { parsePersonKey, type PersonKey } from '../../persons/person-id.js';
import type { PersonRepository } from '../../persons/person-repository.js';
import type { Project } from '../../projects/project.js';
import { parseDate } from '../../query/date-range.js';
import { combineAnd, parseProperties, type PropertyGroup } from '../../query/property-filter-model.js';
import { compilePropertyFilters, type PropertyColumns } from '../../query/property-filters.js';
import type { SqlResolvers } from '../../query/resolvers.js';
import { SqlParams } from '../../query/sql-params.js';
import type { Warehouse } from '../../storage/warehouse/warehouse.js';
import { cohortConditions } from '../cohort-conditions.js';
import { withHogQLErrors } from '../hogql-errors.js';
import { isObject, optionalBoolean, optionalInteger, optionalString, optionalStringList } from '../node-fields.js';
import type { QueryKind, QueryNode, QueryResponse, QueryRunContext } from '../query-kind.js';
import { executeSelect, isoTime, type ExecutionLimits } from '../warehouse-execution.js';
import { DEFAULT_RETURNED_ROWS, MAX_SELECT_RETURNED_ROWS } from './hogql-query.js';

const DATETIME = "DateTime64(6, 'UTC')";
/** PostHog's default lower bound of an EventsQuery. */
const DEFAULT_AFTER = '-24h';
/** The upper bound when none is given: now, plus a little for clocks that run ahead. */
const BEFORE_MARGIN_MS = 5_000;

const STAR_FIELDS = ['uuid', 'event', 'properties', 'timestamp', 'team_id', 'distinct_id', 'elements_chain', 'created_at', 'person_mode'];
const PERSON_FIELDS = [['distinct_id'], ['person', 'id'], ['person', 'created_at'], ['person', 'properties']];
const NO_PERSON = new Set(['', '00000000-0000-0000-0000-000000000000']);

/** Where the property-filter compiler reads the query's `events` table, asking for the lazy joins it needs. */
class EventsTableColumns implements PropertyColumns {
  readonly joins = new Set<string>();
  readonly eventProperties = '`e`.`properties`';
  readonly elementsChain = '`e`.`elements_chain`';

  get personProperties(): string {
    this.joins.add('person');
    return '`e`.`__person__properties`';
  }

  get personId(): string {
    this.joins.add('pdi');
    return '`e`.`__current_person_id`';
  }

  groupProperties(groupTypeIndex: number): string {
    this.joins.add(`group_${groupTypeIndex}`);
    return `\`e\`.\`__group_${groupTypeIndex}__properties\``;
  }

  get sessionDuration(): string {
    throw new ValidationError('query.properties', 'Session property filters are not supported in an EventsQuery.');
  }
}

type SelectItem = { kind: 'star' } | { kind: 'person' } | { kind: 'expr'; expr: Expr };

function containsAggregate(expr: Expr): boolean {
  switch (expr.kind) {
    case 'Call':
      return isAggregate(expr.name) || expr.args.some(containsAggregate) || (expr.params ?? []).some(containsAggregate);
    case 'Alias':
      return containsAggregate(expr.expr);
    case 'ArithmeticOperation':
    case 'CompareOperation':
      return containsAggregate(expr.left) || containsAggregate(expr.right);
    case 'And':
    case 'Or':
    case 'Array':
    case 'Tuple':
      return expr.exprs.some(containsAggregate);
    case 'Not':
      return containsAggregate(expr.expr);
    case 'Between':
      return containsAggregate(expr.expr) || containsAggregate(expr.low) || containsAggregate(expr.high);
    case 'ArrayAccess':
      return containsAggregate(expr.array) || containsAggregate(expr.property);
    case 'TupleAccess':
      return containsAggregate(expr.tuple);
    case 'TypeCast':
      return containsAggregate(expr.expr);
    default:
      return false;
  }
}

function field(...chain: string[]): Expr {
  return { kind: 'Field', chain };
}

function tuple(chains: string[][]): Expr {
  return { kind: 'Tuple', exprs: chains.map((chain) => field(...chain)) };
}

function raw(sql: string, joins: Iterable<string> = []): Expr {
  return { kind: 'RawSql', sql, joins: [...joins] };
}

function starObject(value: unknown): unknown {
  if (!Array.isArray(value)) return value;
  const object: Record<string, unknown> = Object.fromEntries(STAR_FIELDS.map((name, index) => [name, value[index]]));
  for (const name of ['timestamp', 'created_at']) if (typeof object[name] === 'string') object[name] = isoTime(object[name]);
  if (typeof object.properties === 'string') {
    try {
      object.properties = JSON.parse(object.properties);
    } catch {
      // Stored properties are always JSON; anything else is answered as the text it is.
    }
  }
  return object;
}

function personObject(value: unknown): unknown {
  if (!Array.isArray(value)) return value;
  const [distinctId, uuid, createdAt, properties] = value as [string, string, string, string];
  if (NO_PERSON.has(uuid)) return { distinct_id: distinctId };
  let parsed: unknown = {};
  try {
    parsed = JSON.parse(properties);
  } catch {
    parsed = {};
  }
  return { uuid, created_at: typeof createdAt === 'string' ? isoTime(createdAt) : createdAt, properties: parsed, distinct_id: distinctId };
}

/** `YYYY-MM-DD HH:MM:SS.ffffff` in UTC, as the warehouse compares times. */
function warehouseTime(at: DateTime): string {
  return at.toUTC().toFormat('yyyy-MM-dd HH:mm:ss.SSS');
}

/**
 * EventsQuery: a list of events (or aggregates over them) given as HogQL select and where
 * strings plus PostHog's filters (event, action, person, properties, time bounds), printed
 * through the same HogQL printer and the one property-filter compiler.
 */
export class EventsQueryKind implements QueryKind {
  constructor(
    private readonly warehouse: Warehouse,
    private readonly limits: ExecutionLimits,
    private readonly persons: PersonRepository,
    private readonly resolvers: SqlResolvers,
  ) {}

  async run(node: QueryNode, context: QueryRunContext): Promise<QueryResponse> {
    const { project, path } = context;
    const selectTexts = optionalStringList(node, 'select', path);
    if (selectTexts === null) throw new ValidationError(`${path}.select`, 'This field is required.', 'required');
    if (selectTexts.length === 0) throw new ValidationError(`${path}.select`, 'Select at least one column.');
    const whereTexts = optionalStringList(node, 'where', path) ?? [];
    const orderTexts = optionalStringList(node, 'orderBy', path);
    const limit = Math.min(optionalInteger(node, 'limit', path, 1) ?? DEFAULT_RETURNED_ROWS, MAX_SELECT_RETURNED_ROWS);
    const offset = optionalInteger(node, 'offset', path, 0) ?? 0;

    const items = await Promise.all(
      selectTexts.map((text, index) =>
        withHogQLErrors(`${path}.select.${index}`, `${path}.select.${index}`, (): SelectItem => {
          if (text.trim() === '*') return { kind: 'star' };
          const expr = parseExpr(text);
          if (expr.kind === 'Field' && expr.chain.length === 1 && expr.chain[0] === 'person') return { kind: 'person' };
          return { kind: 'expr', expr };
        }),
      ),
    );
    const wheres = await Promise.all(
      whereTexts.map((text, index) => withHogQLErrors(`${path}.where.${index}`, `${path}.where.${index}`, () => parseExpr(text))),
    );
    const orders = orderTexts
      ? await Promise.all(orderTexts.map((text, index) => withHogQLErrors(`${path}.orderBy.${index}`, `${path}.orderBy.${index}`, () => parseOrderExpr(text))))
      : null;

    const params = new SqlParams({ team_id: project.id });
    const conditions = await this.filterConditions(node, context, params);
    const selectExprs = items.map((item) =>
      item.kind === 'star' ? tuple(STAR_FIELDS.map((name) => [name])) : item.kind === 'person' ? tuple(PERSON_FIELDS) : item.expr,
    );
    const aggregated = selectExprs.some(containsAggregate);

    const query: SelectQuery = emptySelect(selectExprs);
    query.selectFrom = {
      kind: 'JoinExpr',
      table: { kind: 'Field', chain: ['events'] },
      tableArgs: null,
      // The action compiler writes its conditions on `e`, as every events query of Tally names it.
      alias: 'e',
      joinType: null,
      constraint: null,
      nextJoin: null,
      final: false,
      sample: null,
    };
    const plainWheres = wheres.filter((expr) => !containsAggregate(expr));
    const aggregateWheres = wheres.filter(containsAggregate);
    const allConditions = [...conditions, ...plainWheres];
    query.where = allConditions.length === 0 ? null : allConditions.length === 1 ? allConditions[0]! : { kind: 'And', exprs: allConditions };
    if (aggregateWheres.length > 0) query.having = aggregateWheres.length === 1 ? aggregateWheres[0]! : { kind: 'And', exprs: aggregateWheres };
    if (aggregated) {
      const grouped = selectExprs.filter((expr) => !containsAggregate(expr)).map((expr) => (expr.kind === 'Alias' ? expr.expr : expr));
      if (grouped.length > 0) query.groupBy = grouped;
    }
    query.orderBy = orders ?? this.defaultOrder(items, selectTexts);
    query.limit = { kind: 'Constant', value: limit + 1 };
    if (offset > 0) query.offset = { kind: 'Constant', value: offset };

    const cohorts = await cohortConditions(query, this.resolvers.cohorts, params, `${path}.select`);
    const printed = await withHogQLErrors(`${path}.select`, `${path}.select`, () =>
      printSelect(query, { params, timezone: project.timezone, values: null, cohorts }),
    );
    const executed = await executeSelect(this.warehouse, printed.sql, params.all, printed.outputAliases, this.limits, `${path}.select`);
    const rows = executed.rows.slice(0, limit).map((row) =>
      row.map((value, index) => {
        const item = items[index]!;
        if (item.kind === 'star') return starObject(value);
        if (item.kind === 'person') return personObject(value);
        return value;
      }),
    );
    return {
      results: rows,
      columns: selectTexts,
      types: executed.types,
      hogql: printHogQL(query),
      hasMore: executed.rows.length > limit,
      limit,
      offset,
      timings: [],
      modifiers: {},
    };
  }

  /** PostHog's default order: `count()` desc, else the first aggregate desc, else `timestamp` desc, else the first column. */
  private defaultOrder(items: SelectItem[], texts: string[]): OrderExpr[] {
    const exprs = items.map((item) => (item.kind === 'expr' ? item.expr : null));
    const countIndex = texts.findIndex((text) => text.trim() === 'count()');
    if (countIndex >= 0) return [{ kind: 'OrderExpr', expr: exprs[countIndex]!, order: 'DESC' }];
    const aggregate = exprs.find((expr) => expr !== null && containsAggregate(expr));
    if (aggregate) return [{ kind: 'OrderExpr', expr: aggregate.kind === 'Alias' ? aggregate.expr : aggregate, order: 'DESC' }];
    if (items.some((item) => item.kind === 'star') || texts.some((text) => text.trim() === 'timestamp')) {
      return [{ kind: 'OrderExpr', expr: field('timestamp'), order: 'DESC' }];
    }
    const first = items[0]!;
    const expr = first.kind === 'expr' ? (first.expr.kind === 'Alias' ? first.expr.expr : first.expr) : field('distinct_id');
    return [{ kind: 'OrderExpr', expr, order: 'ASC' }];
  }

  /** The node's filters as conditions on `events`: time bounds, event names, action, person, properties. */
  private async filterConditions(node: QueryNode, { project, path, now }: QueryRunContext, params: SqlParams): Promise<Expr[]> {
    const conditions: Expr[] = [];
    const after = optionalString(node, 'after', path) ?? DEFAULT_AFTER;
    if (after !== 'all') conditions.push(raw(`\`e\`.timestamp > ${params.add(warehouseTime(this.date(after, project, now, `${path}.after`)), DATETIME)}`));
    const beforeText = optionalString(node, 'before', path);
    const before = beforeText === null ? now.plus({ milliseconds: BEFORE_MARGIN_MS }) : this.date(beforeText, project, now, `${path}.before`);
    conditions.push(raw(`\`e\`.timestamp < ${params.add(warehouseTime(before), DATETIME)}`));

    const event = optionalString(node, 'event', path);
    if (event !== null && event !== '') conditions.push(raw(`\`e\`.event = ${params.add(event, 'String')}`));
    const events = optionalStringList(node, 'events', path);
    if (events !== null && events.length > 0) conditions.push(raw(`\`e\`.event IN ${params.add(events, 'Array(String)')}`));

    const columns = new EventsTableColumns();
    const actionId = node.actionId;
    if (actionId !== undefined && actionId !== null) {
      if (typeof actionId !== 'number' || !Number.isSafeInteger(actionId))
        throw new ValidationError(`${path}.actionId`, 'Must be the integer id of an action.');
      const action = actionId > 2_147_483_647 ? null : await this.resolvers.actions.resolve(actionId, columns, params);
      if (!action) throw new ValidationError(`${path}.actionId`, `Action ${actionId} does not exist.`);
      conditions.push(raw(action.condition, columns.joins));
    }
    const personId = node.personId;
    if (personId !== undefined && personId !== null) {
      if (typeof personId !== 'string' && typeof personId !== 'number')
        throw new ValidationError(`${path}.personId`, 'Must be the integer id or the UUID of a person.');
      let key: PersonKey;
      try {
        key = parsePersonKey(String(personId));
      } catch {
        throw new ValidationError(`${path}.personId`, 'Must be the integer id or the UUID of a person.');
      }
      const person = await this.persons.findByKey(project.id, key);
      const distinctIds = person ? await this.persons.distinctIdsOf(person.id) : [];
      conditions.push(raw(`\`e\`.distinct_id IN ${params.add(distinctIds, 'Array(String)')}`));
    }
    const properties = combineAnd(
      this.properties(node, 'properties', path),
      this.properties(node, 'fixedProperties', path),
      optionalBoolean(node, 'filterTestAccounts', path) ? parseProperties(project.testAccountFilters) : combineAnd(),
    );
    if (properties.values.length > 0) {
      const filtersColumns = new EventsTableColumns();
      let sql: string;
      try {
        sql = await compilePropertyFilters(properties, { columns: filtersColumns, params, cohorts: this.resolvers.cohorts });
      } catch (error) {
        if (error instanceof ValidationError) throw new ValidationError(`${path}.properties`, error.detail, error.code);
        throw error;
      }
      conditions.push(raw(sql, filtersColumns.joins));
    }
    return conditions;
  }

  private properties(node: QueryNode, fieldName: string, path: string): PropertyGroup {
    const value = node[fieldName];
    if (value === undefined || value === null) return combineAnd();
    if (!Array.isArray(value) && !isObject(value)) throw new ValidationError(`${path}.${fieldName}`, 'Properties must be a list or a property group.');
    return parseProperties(value, `${path}.${fieldName}`);
  }

  private date(text: string, project: Project, now: DateTime, attr: string): DateTime {
    const parsed = parseDate(text, project.timezone, now);
    if (!parsed) throw new ValidationError(attr, `Unable to parse date "${text}".`);
    return parsed.at;
  }
}
