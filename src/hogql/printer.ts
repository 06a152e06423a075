import { jsonValueText } from '../query/property-filters.js';
import type { SqlParams } from '../query/sql-params.js';
import type { Call, CompareOperation, ConstantValue, CTE, Expr, JoinExpr, OrderExpr, SelectQuery, SelectSetQuery, WindowExpr } from './ast.js';
import { isTableName, quotedIdentifier, TABLES, tableSql, type LazyJoinName } from './database.js';
import { HogQLPlaceholderError, HogQLQueryError, HogQLSyntaxError } from './errors.js';
import { findFunction, unsupportedFunctionMessage } from './functions.js';
import { printHogQL } from './hogql-text.js';
import { asteriskColumns, fieldOfTable, resolveField, Scope, type ResolvedField, type TableRef } from './resolver.js';

/**
 * Prints a resolved HogQL tree as ClickHouse SQL. Every table is its project-guarded subquery
 * (database.ts), every literal and placeholder value a bound parameter, every function one of
 * the allow-list; HogQL's null semantics are spelled out (`null = null` is 1, comparisons with
 * null are 0, `concat` reads null as '').
 */

export type PlaceholderValue = ConstantValue | ConstantValue[];

export interface PrintOptions {
  /** Where bound values go; must already hold `{team_id:Int64}`. */
  params: SqlParams;
  /** The project's time zone, for `now()` and `toDateTime()`. */
  timezone: string;
  /** Values of `{name}` placeholders; null when the request sent none. */
  values: Record<string, PlaceholderValue> | null;
  /**
   * Membership conditions of the cohorts `IN COHORT` names, by id, each reading the person as
   * `COHORT_PERSON`; absent when the query is only checked, not run.
   */
  cohorts?: ReadonlyMap<number, string>;
}

/** Where a cohort's membership condition reads the person id, replaced by the printed left side of `IN COHORT`. */
export const COHORT_PERSON = '__hogql_cohort_person__';

/** The cohort ids a query's `IN COHORT`s name, so their conditions can be compiled before printing. */
export function cohortIds(node: unknown, found: Set<number> = new Set()): Set<number> {
  if (Array.isArray(node)) {
    for (const item of node) cohortIds(item, found);
  } else if (typeof node === 'object' && node !== null) {
    const record = node as Record<string, unknown>;
    if (record.kind === 'CompareOperation' && (record.op === 'in cohort' || record.op === 'not in cohort')) {
      const right = record.right as Expr;
      if (right.kind === 'Constant' && typeof right.value === 'number' && Number.isSafeInteger(right.value)) found.add(right.value);
    }
    for (const value of Object.values(record)) if (typeof value === 'object') cohortIds(value, found);
  }
  return found;
}

export interface PrintedSelect {
  sql: string;
  /** Column names as PostHog gives them: alias, else hidden alias, else the expression as HogQL. */
  columns: string[];
  /** The SQL alias of each top-level column, to read rows by. */
  outputAliases: string[];
}

/** How many CTE expansions one query may make (each use of a CTE prints it again). */
const MAX_CTE_EXPANSIONS = 64;
/** Longest printed SQL: past this the query is refused instead of sent. */
const MAX_PRINTED_LENGTH = 4_000_000;

const ARITHMETIC: Record<string, string> = { '+': 'plus', '-': 'minus', '*': 'multiply', '/': 'divide', '%': 'modulo' };

const NON_NULL_CALLS = new Set([
  'count',
  'countIf',
  'uniq',
  'uniqIf',
  'uniqExact',
  'uniqExactIf',
  'length',
  'empty',
  'notEmpty',
  'isNull',
  'isNotNull',
  'toString',
  'now',
  'today',
  'concat',
  'lower',
  'upper',
]);

const TYPE_CASTS: Record<string, (sql: string, timezone: string) => string> = {
  string: (sql) => `toString(${sql})`,
  int: (sql) => `accurateCastOrNull(${sql}, 'Int64')`,
  int64: (sql) => `accurateCastOrNull(${sql}, 'Int64')`,
  integer: (sql) => `accurateCastOrNull(${sql}, 'Int64')`,
  int32: (sql) => `accurateCastOrNull(${sql}, 'Int32')`,
  float: (sql) => `accurateCastOrNull(${sql}, 'Float64')`,
  float64: (sql) => `accurateCastOrNull(${sql}, 'Float64')`,
  double: (sql) => `accurateCastOrNull(${sql}, 'Float64')`,
  date: (sql) => `accurateCastOrNull(${sql}, 'Date')`,
  datetime: (sql, timezone) => `parseDateTime64BestEffortOrNull(toString(${sql}), 6, ${timezone})`,
  uuid: (sql) => `accurateCastOrNull(${sql}, 'UUID')`,
  bool: (sql) => `accurateCastOrNull(${sql}, 'Bool')`,
  boolean: (sql) => `accurateCastOrNull(${sql}, 'Bool')`,
};

function parameterType(value: ConstantValue): string {
  if (typeof value === 'string') return 'String';
  if (typeof value === 'boolean') return 'Bool';
  if (typeof value === 'number') return Number.isSafeInteger(value) ? 'Int64' : 'Float64';
  return 'Nullable(String)';
}

/** The ClickHouse type of a `values` array: one element type, Nullable when it holds nulls. */
function arrayType(values: ConstantValue[], name: string): string {
  const present = values.filter((value) => value !== null);
  const types = new Set(present.map(parameterType));
  if (types.has('Int64') && types.has('Float64')) types.delete('Int64');
  if (types.size > 1) throw new HogQLPlaceholderError(`The values of {${name}} must all be of one type (strings, numbers or booleans).`);
  const element = [...types][0] ?? 'String';
  return `Array(${present.length < values.length ? `Nullable(${element})` : element})`;
}

class Printer {
  private cteExpansions = 0;
  private readonly expanding: string[] = [];
  private readonly nullable = new WeakMap<Expr, boolean>();
  private timezoneParameter: string | null = null;

  constructor(private readonly options: PrintOptions) {}

  private get timezone(): string {
    this.timezoneParameter ??= this.options.params.add(this.options.timezone, 'String');
    return this.timezoneParameter;
  }

  private bind(value: ConstantValue): string {
    if (value === null) return 'NULL';
    if (typeof value === 'number' && !Number.isFinite(value)) return Number.isNaN(value) ? 'nan' : value > 0 ? 'inf' : '-inf';
    return this.options.params.add(value, parameterType(value));
  }

  // ---- SELECT

  printTopLevel(query: SelectQuery | SelectSetQuery): PrintedSelect {
    return this.printSetOrSelect(query, null, true);
  }

  private printSetOrSelect(query: SelectQuery | SelectSetQuery, parent: Scope | null, topLevel: boolean): PrintedSelect {
    if (query.kind === 'SelectQuery') return this.printSelect(query, parent, topLevel);
    const first = this.printSetOrSelect(query.initial, parent, topLevel);
    const parts = [query.initial.kind === 'SelectSetQuery' ? `(${first.sql})` : first.sql];
    for (const item of query.subsequent) {
      const printed = this.printSetOrSelect(item.query, parent, false);
      parts.push(`${item.operator} ${item.query.kind === 'SelectSetQuery' ? `(${printed.sql})` : printed.sql}`);
    }
    return { sql: parts.join(' '), columns: first.columns, outputAliases: first.outputAliases };
  }

  private printSelect(query: SelectQuery, parent: Scope | null, topLevel: boolean): PrintedSelect {
    const scope = new Scope(parent);
    for (const cte of query.ctes ?? []) scope.ctes.set(cte.name, cte);
    const from = query.selectFrom ? this.registerTables(query.selectFrom, scope) : [];
    for (const expr of query.select) if (expr.kind === 'Alias') scope.aliases.set(expr.alias, true);
    for (const expr of query.arrayJoinList ?? []) if (expr.kind === 'Alias') scope.arrayJoinAliases.add(expr.alias);

    const columns: string[] = [];
    const outputAliases: string[] = [];
    const selected: string[] = [];
    const usedNames = new Set<string>(scope.aliases.keys());
    const addColumn = (sql: string, name: string, userAlias: string | null) => {
      columns.push(name);
      if (topLevel) {
        const alias = userAlias ?? `_hogql_col_${outputAliases.length}`;
        outputAliases.push(alias);
        selected.push(userAlias !== null ? `${sql} AS ${quotedIdentifier(userAlias)}` : `${sql} AS ${quotedIdentifier(alias)}`);
        return;
      }
      if (userAlias !== null) {
        selected.push(`${sql} AS ${quotedIdentifier(userAlias)}`);
        return;
      }
      if (!usedNames.has(name)) {
        usedNames.add(name);
        selected.push(`${sql} AS ${quotedIdentifier(name)}`);
      } else {
        selected.push(sql);
      }
    };

    for (const expr of query.select) {
      if (expr.kind === 'Field' && expr.chain[expr.chain.length - 1] === '*') {
        const alias = expr.chain.length > 1 ? expr.chain.slice(0, -1).join('.') : null;
        for (const { table, columns: names } of asteriskColumns(scope, alias)) {
          for (const name of names) {
            const resolved = fieldOfTable(table, [name], [name])!;
            addColumn(this.fieldSql(resolved), name, null);
          }
        }
        continue;
      }
      if (expr.kind === 'Alias') {
        addColumn(this.print(expr.expr, scope), expr.alias, expr.alias);
        continue;
      }
      const sql = this.print(expr, scope);
      addColumn(sql, this.columnName(expr, scope), null);
    }
    if (selected.length === 0) throw new HogQLQueryError('A SELECT needs at least one column');

    const clauses: string[] = [];
    const arrayJoin =
      query.arrayJoinOp && query.arrayJoinList ? `${query.arrayJoinOp} ${query.arrayJoinList.map((expr) => this.print(expr, scope)).join(', ')}` : null;
    const prewhere = query.prewhere ? `PREWHERE ${this.print(query.prewhere, scope)}` : null;
    const where = query.where ? `WHERE ${this.print(query.where, scope)}` : null;
    const groupBy = query.groupBy ? `GROUP BY ${query.groupBy.map((expr) => this.printPositional(expr, scope)).join(', ')}` : null;
    const having = query.having ? `HAVING ${this.print(query.having, scope)}` : null;
    const window = query.windowExprs
      ? `WINDOW ${Object.entries(query.windowExprs)
          .map(([name, expr]) => `${quotedIdentifier(name)} AS (${this.printWindow(expr, scope)})`)
          .join(', ')}`
      : null;
    const orderBy = query.orderBy ? `ORDER BY ${query.orderBy.map((order) => this.printOrder(order, scope)).join(', ')}` : null;
    const limitBy = query.limitBy
      ? `LIMIT ${this.print(query.limitBy.n, scope)}${query.limitBy.offset ? ` OFFSET ${this.print(query.limitBy.offset, scope)}` : ''} BY ${query.limitBy.exprs
          .map((expr) => this.print(expr, scope))
          .join(', ')}`
      : null;
    const limit = query.limit ? `LIMIT ${this.print(query.limit, scope)}${query.limitWithTies ? ' WITH TIES' : ''}` : null;
    const offset = query.offset ? `OFFSET ${this.print(query.offset, scope)}` : null;
    const fromSql = from.length > 0 ? `FROM ${this.printFrom(from, scope)}` : null;

    clauses.push(`SELECT${query.distinct ? ' DISTINCT' : ''} ${selected.join(', ')}`);
    for (const clause of [fromSql, arrayJoin, prewhere, where, groupBy, having, window, orderBy, limitBy, limit, offset]) {
      if (clause !== null) clauses.push(clause);
    }
    const sql = clauses.join(' ');
    if (sql.length > MAX_PRINTED_LENGTH) throw new HogQLQueryError('Query is too complex: its SQL would be too long to run');
    return { sql, columns, outputAliases };
  }

  /** Resolves the FROM clause into the scope's tables; joins are printed once the rest of the SELECT has asked for lazy columns. */
  private registerTables(first: JoinExpr, scope: Scope): { join: JoinExpr; ref: TableRef; sql: string | null }[] {
    const entries: { join: JoinExpr; ref: TableRef; sql: string | null }[] = [];
    for (let join: JoinExpr | null = first; join !== null; join = join.nextJoin) {
      if (join.final) throw new HogQLQueryError('The FINAL keyword is not supported in HogQL: tables are read at their current version already');
      if (join.sample) throw new HogQLQueryError('SAMPLE is not supported: Tally reads every row');
      const table = join.table;
      if (table.kind === 'Placeholder') throw new HogQLQueryError('Placeholders cannot name a table');
      if (table.kind === 'SelectQuery' || table.kind === 'SelectSetQuery') {
        const printed = this.printSetOrSelect(table, scope, false);
        const alias = join.alias ?? `_subquery_${entries.length}`;
        const ref: TableRef = { kind: 'subquery', alias, columns: printed.columns };
        scope.addTable(ref);
        entries.push({ join, ref, sql: `(${printed.sql})` });
        continue;
      }
      const name = table.chain.join('.');
      if (join.tableArgs !== null) {
        if (name === 'numbers') {
          const ref: TableRef = { kind: 'numbers', alias: join.alias ?? 'numbers' };
          scope.addTable(ref);
          entries.push({ join, ref, sql: this.numbersSql(join.tableArgs) });
          continue;
        }
        if (table.chain.length === 1 && isTableName(name)) throw new HogQLQueryError(`Table '${name}' does not accept arguments`);
        throw new HogQLQueryError(`Unknown table \`${name}\`.`);
      }
      const cte = table.chain.length === 1 ? scope.cte(name) : undefined;
      if (cte && cte.cteType === 'subquery') {
        const printed = this.expandCte(cte, scope);
        const ref: TableRef = { kind: 'subquery', alias: join.alias ?? name, columns: printed.columns };
        scope.addTable(ref);
        entries.push({ join, ref, sql: `(${printed.sql})` });
        continue;
      }
      if (name === 'numbers') throw new HogQLQueryError("Table function 'numbers' requires arguments");
      if (table.chain.length !== 1 || !isTableName(name)) throw new HogQLQueryError(`Unknown table \`${name}\`.`);
      const ref: TableRef = { kind: 'table', alias: join.alias ?? name, def: TABLES[name], joins: new Set<LazyJoinName>(), columns: new Set<string>() };
      scope.addTable(ref);
      entries.push({ join, ref, sql: null });
    }
    return entries;
  }

  private expandCte(cte: CTE, scope: Scope): PrintedSelect {
    if (this.expanding.includes(cte.name)) throw new HogQLQueryError(`Recursive CTE "${cte.name}" is not supported`);
    if (++this.cteExpansions > MAX_CTE_EXPANSIONS) throw new HogQLQueryError('Query is too complex: its CTEs are used too many times');
    this.expanding.push(cte.name);
    try {
      if (cte.expr.kind !== 'SelectQuery' && cte.expr.kind !== 'SelectSetQuery') throw new HogQLQueryError(`CTE "${cte.name}" is not a subquery`);
      return this.printSetOrSelect(cte.expr, scope, false);
    } finally {
      this.expanding.pop();
    }
  }

  private numbersSql(args: Expr[]): string {
    if (args.length === 0) throw new HogQLQueryError("Table function 'numbers' requires at least 1 argument");
    if (args.length > 2) throw new HogQLQueryError("Table function 'numbers' requires at most 2 arguments");
    const printed = args.map((arg) => {
      const value = arg.kind === 'Placeholder' ? this.placeholderValue(arg.chain) : arg.kind === 'Constant' ? arg.value : undefined;
      if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
        throw new HogQLQueryError("Table function 'numbers' takes non-negative integer constants");
      }
      return this.options.params.add(value, 'UInt64');
    });
    return `numbers(${printed.join(', ')})`;
  }

  private printFrom(entries: { join: JoinExpr; ref: TableRef; sql: string | null }[], scope: Scope): string {
    // Constraints first: they may ask for lazy columns of the tables they join.
    const constraints = entries.map(({ join }) => {
      if (!join.constraint) return '';
      if (join.constraint.type === 'USING') {
        const names = join.constraint.expr.kind === 'Tuple' ? join.constraint.expr.exprs : [join.constraint.expr];
        return ` USING (${names
          .map((expr) => {
            if (expr.kind !== 'Field' || expr.chain.length !== 1) throw new HogQLQueryError('USING takes column names');
            // ClickHouse reads the name from both sides: each table's subquery must select it.
            for (const entry of entries) if (entry.ref.kind === 'table') entry.ref.columns?.add(expr.chain[0]!);
            return quotedIdentifier(expr.chain[0]!);
          })
          .join(', ')})`;
      }
      return ` ON ${this.print(join.constraint.expr, scope)}`;
    });
    return entries
      .map(({ join, ref, sql }, index) => {
        const table = sql ?? (ref.kind === 'table' ? tableSql(ref.def.name, ref.joins, ref.columns) : '');
        const item = `${table} AS ${quotedIdentifier(ref.alias)}`;
        return index === 0 ? item : ` ${join.joinType ?? 'JOIN'} ${item}${constraints[index]}`;
      })
      .join('');
  }

  private printOrder(order: OrderExpr, scope: Scope): string {
    return `${this.printPositional(order.expr, scope)} ${order.order}`;
  }

  /** `ORDER BY 2` and `GROUP BY 1` name columns by position: such an integer prints as itself, not as a bound value. */
  private printPositional(expr: Expr, scope: Scope): string {
    if (expr.kind === 'Constant' && typeof expr.value === 'number' && Number.isSafeInteger(expr.value) && expr.value > 0) return String(expr.value);
    return this.print(expr, scope);
  }

  private printWindow(window: WindowExpr, scope: Scope): string {
    const parts: string[] = [];
    if (window.partitionBy) parts.push(`PARTITION BY ${window.partitionBy.map((expr) => this.print(expr, scope)).join(', ')}`);
    if (window.orderBy) parts.push(`ORDER BY ${window.orderBy.map((order) => this.printOrder(order, scope)).join(', ')}`);
    if (window.frameMethod && window.frameStart) {
      const bound = (value: NonNullable<WindowExpr['frameStart']>) => {
        if (value.type === 'CURRENT ROW') return 'CURRENT ROW';
        if (value.value === null) return `UNBOUNDED ${value.type}`;
        return `${Math.trunc(value.value)} ${value.type}`;
      };
      parts.push(
        window.frameEnd
          ? `${window.frameMethod} BETWEEN ${bound(window.frameStart)} AND ${bound(window.frameEnd)}`
          : `${window.frameMethod} ${bound(window.frameStart)}`,
      );
    }
    return parts.join(' ');
  }

  // ---- names

  /** PostHog's name of a select item without an alias: a field's hidden alias, else the item as HogQL. */
  private columnName(expr: Expr, scope: Scope): string {
    if (expr.kind === 'Field') {
      const [first] = expr.chain;
      if (expr.chain.length === 1 && first !== undefined && (scope.aliases.has(first) || scope.arrayJoinAliases.has(first))) return first;
      try {
        return resolveField(scope, expr.chain).name;
      } catch {
        return printHogQL(expr);
      }
    }
    return printHogQL(expr);
  }

  // ---- expressions

  private fieldSql(resolved: ResolvedField): string {
    if (resolved.datetime && this.options.timezone !== 'UTC') return `toTimeZone(${resolved.sql}, ${this.timezone})`;
    if (!resolved.json || resolved.path.length === 0) return resolved.sql;
    return this.propertySql(resolved.sql, resolved.path);
  }

  /** PostHog's property read: JSON null and missing are NULL, strings their decoded text, other values their JSON text. */
  private propertySql(json: string, path: (string | number)[]): string {
    const keys = path.map((key) => (typeof key === 'number' ? this.options.params.add(key, 'Int64') : this.options.params.add(key, 'String'))).join(', ');
    return jsonValueText(json, keys, 'null');
  }

  private placeholderValue(chain: string[]): PlaceholderValue {
    const name = chain.join('.');
    const values = this.options.values;
    if (values === null || Object.keys(values).length === 0) throw new HogQLPlaceholderError(`Unresolved placeholder: {${name}}`);
    if (chain.length !== 1 || !Object.hasOwn(values, name)) {
      throw new HogQLPlaceholderError(`Placeholder {${name}} is not available in this context. You can use the following: ${Object.keys(values).join(', ')}`);
    }
    return values[name]!;
  }

  /** Whether an (already printed) expression is text: a string literal, a property read, or a call that makes text. */
  private isText(expr: Expr): boolean {
    if (expr.kind === 'Constant') return typeof expr.value === 'string';
    if (expr.kind === 'Field') return this.nullable.get(expr) === true;
    if (expr.kind === 'ArrayAccess' || expr.kind === 'TupleAccess') return true;
    if (expr.kind === 'Call')
      return ['toString', 'concat', 'substring', 'lower', 'upper', 'replaceAll', 'replaceRegexpAll', 'JSONExtractString', 'JSONExtractRaw'].includes(expr.name);
    return expr.kind === 'Placeholder';
  }

  private isNullable(expr: Expr): boolean {
    switch (expr.kind) {
      case 'Constant':
        return expr.value === null;
      case 'Field':
        return this.nullable.get(expr) ?? true;
      case 'ArithmeticOperation':
        return this.isNullable(expr.left) || this.isNullable(expr.right);
      case 'Call':
        return !NON_NULL_CALLS.has(expr.name);
      case 'CompareOperation':
      case 'And':
      case 'Or':
      case 'Not':
        return false;
      default:
        return true;
    }
  }

  /** Prints `expr`; an error without a position gets the position of the innermost node it came from. */
  print(expr: Expr, scope: Scope): string {
    try {
      return this.printUnlocated(expr, scope);
    } catch (error) {
      if (error instanceof HogQLQueryError && error.start === null && expr.start !== undefined) {
        const Located = error.constructor as typeof HogQLQueryError;
        throw new Located(error.message, expr.start, expr.end ?? expr.start);
      }
      throw error;
    }
  }

  private printUnlocated(expr: Expr, scope: Scope): string {
    switch (expr.kind) {
      case 'RawSql': {
        const events = [...scope.tables.values()].find((table) => table.kind === 'table' && table.def.name === 'events');
        if (events?.kind === 'table') {
          for (const join of expr.joins) events.joins.add(join as LazyJoinName);
          events.columns = null;
        }
        return `(${expr.sql})`;
      }
      case 'Constant':
        return this.bind(expr.value);
      case 'Placeholder': {
        const value = this.placeholderValue(expr.chain);
        if (Array.isArray(value)) return this.options.params.add(value, arrayType(value, expr.chain.join('.')));
        if (value !== null && typeof value === 'object')
          throw new HogQLPlaceholderError(`The value of {${expr.chain.join('.')}} must be a string, number, boolean, null or a list of them`);
        return this.bind(value);
      }
      case 'Field':
        return this.printField(expr, scope);
      case 'Alias':
        return `${this.print(expr.expr, scope)} AS ${quotedIdentifier(expr.alias)}`;
      case 'ArithmeticOperation':
        return `${ARITHMETIC[expr.op]}(${this.print(expr.left, scope)}, ${this.print(expr.right, scope)})`;
      case 'CompareOperation':
        return this.printComparison(expr, scope);
      case 'And':
        return `and(${expr.exprs.map((item) => this.print(item, scope)).join(', ')})`;
      case 'Or':
        return `or(${expr.exprs.map((item) => this.print(item, scope)).join(', ')})`;
      case 'Not':
        return `not(${this.print(expr.expr, scope)})`;
      case 'Between':
        return `(${this.print(expr.expr, scope)} ${expr.negated ? 'NOT ' : ''}BETWEEN ${this.print(expr.low, scope)} AND ${this.print(expr.high, scope)})`;
      case 'Call':
        return this.printCall(expr, scope);
      case 'ExprCall':
        throw new HogQLQueryError(`Unsupported function call '${printHogQL(expr.expr)}(...)'`);
      case 'Lambda': {
        scope.lambdaArgs.push(...expr.args);
        try {
          return `(${expr.args.map(quotedIdentifier).join(', ')}) -> ${this.print(expr.expr, scope)}`;
        } finally {
          scope.lambdaArgs.splice(scope.lambdaArgs.length - expr.args.length, expr.args.length);
        }
      }
      case 'ArrayAccess':
      case 'TupleAccess':
        return this.printAccess(expr, scope);
      case 'Array':
        return `[${expr.exprs.map((item) => this.print(item, scope)).join(', ')}]`;
      case 'Tuple':
        return `tuple(${expr.exprs.map((item) => this.print(item, scope)).join(', ')})`;
      case 'Dict':
        return `map(${expr.items.map(([key, value]) => `${this.print(key, scope)}, ${this.print(value, scope)}`).join(', ')})`;
      case 'TypeCast': {
        const cast = TYPE_CASTS[expr.typeName];
        if (!cast) throw new HogQLQueryError(`Unsupported type cast to ${expr.typeName}`);
        return cast(this.print(expr.expr, scope), this.timezone);
      }
      case 'WindowFunction': {
        const def = findFunction(expr.name);
        if (!def) throw new HogQLQueryError(unsupportedFunctionMessage(expr.name));
        const first = expr.exprs.map((item) => this.print(item, scope)).join(', ');
        const second = expr.args && expr.args.length > 0 ? `(${expr.args.map((item) => this.print(item, scope)).join(', ')})` : '';
        const over = expr.overExpr ? `(${this.printWindow(expr.overExpr, scope)})` : quotedIdentifier(expr.overIdentifier ?? '');
        return `${def.clickhouse}(${first})${second} OVER ${over}`;
      }
      case 'SelectQuery':
      case 'SelectSetQuery':
        return `(${this.printSetOrSelect(expr, scope, false).sql})`;
    }
  }

  private printField(expr: Extract<Expr, { kind: 'Field' }>, scope: Scope): string {
    const chain = expr.chain;
    const [first] = chain;
    if (first === undefined) throw new HogQLQueryError('Empty field');
    if (first === '*') throw new HogQLQueryError('* can only be selected, or counted with count(*)');
    if (scope.lambdaArgs.includes(first)) {
      if (chain.length > 1) throw new HogQLQueryError(`Can not access "${chain.slice(1).join('.')}" on the lambda argument ${first}`);
      return quotedIdentifier(first);
    }
    if (chain.length === 1 && (scope.aliases.has(first) || scope.arrayJoinAliases.has(first))) return quotedIdentifier(first);
    if (chain.length === 1 && !scope.tables.has(first)) {
      const cte = scope.cte(first);
      if (cte && cte.cteType === 'column') {
        const inTables = [...scope.tables.values()].some((table) => fieldOfTable(table, chain, chain) !== null);
        if (!inTables) return `(${this.print(cte.expr, scope)})`;
      }
    }
    const resolved = resolveField(scope, chain);
    this.nullable.set(expr, resolved.nullable);
    return this.fieldSql(resolved);
  }

  /** `properties.a[1]`, `properties['x']`, `t.1`: a JSON read when the base is a JSON field, else arrayElement/tupleElement. */
  private printAccess(expr: Extract<Expr, { kind: 'ArrayAccess' | 'TupleAccess' }>, scope: Scope): string {
    const keys: (string | number)[] = [];
    let base: Expr = expr;
    while (base.kind === 'ArrayAccess' || base.kind === 'TupleAccess') {
      if (base.kind === 'TupleAccess') {
        keys.unshift(base.index);
        base = base.tuple;
      } else if (base.property.kind === 'Constant' && (typeof base.property.value === 'string' || typeof base.property.value === 'number')) {
        keys.unshift(base.property.value);
        base = base.array;
      } else {
        break;
      }
    }
    for (const key of keys) {
      if (key === 0) throw new HogQLQueryError('SQL indexes start from one, not from zero. E.g: array[1]');
    }
    if (
      base.kind === 'Field' &&
      keys.length > 0 &&
      !scope.lambdaArgs.includes(base.chain[0] ?? '') &&
      !(base.chain.length === 1 && scope.aliases.has(base.chain[0]!))
    ) {
      const resolved = resolveField(scope, base.chain);
      if (resolved.json) return this.propertySql(resolved.sql, [...resolved.path, ...keys]);
    }
    if (expr.kind === 'TupleAccess') {
      if (expr.index === 0) throw new HogQLQueryError('SQL indexes start from one, not from zero. E.g: array[1]');
      return `tupleElement(${this.print(expr.tuple, scope)}, ${this.options.params.add(expr.index, 'UInt64')})`;
    }
    if (expr.property.kind === 'Constant' && expr.property.value === 0) throw new HogQLQueryError('SQL indexes start from one, not from zero. E.g: array[1]');
    return `arrayElement(${this.print(expr.array, scope)}, ${this.print(expr.property, scope)})`;
  }

  private printComparison(expr: CompareOperation, scope: Scope): string {
    const { op } = expr;
    if (op === 'in cohort' || op === 'not in cohort') return this.printCohortMembership(expr, scope);
    const leftIsNull = expr.left.kind === 'Constant' && expr.left.value === null;
    const rightIsNull = expr.right.kind === 'Constant' && expr.right.value === null;
    if ((op === '==' || op === '!=') && (leftIsNull || rightIsNull)) {
      if (leftIsNull && rightIsNull) return op === '==' ? '1' : '0';
      const other = this.print(leftIsNull ? expr.right : expr.left, scope);
      return op === '==' ? `isNull(${other})` : `isNotNull(${other})`;
    }
    const left = this.print(expr.left, scope);
    if (op === 'in' || op === 'not in') {
      const right = expr.right.kind === 'Tuple' ? `(${expr.right.exprs.map((item) => this.print(item, scope)).join(', ')})` : this.print(expr.right, scope);
      return op === 'in' ? `ifNull((${left} IN ${right}), 0)` : `ifNull((${left} NOT IN ${right}), 1)`;
    }
    const right = this.print(expr.right, scope);
    const leftNullable = this.isNullable(expr.left);
    const rightNullable = this.isNullable(expr.right);
    const nullable = leftNullable || rightNullable;
    const strict = (call: string, whenNull: string) => (nullable ? `ifNull(${call}, ${whenNull})` : call);
    // Only when both sides can be NULL does NULL = NULL need its own test.
    const bothNullable = leftNullable && rightNullable;
    switch (op) {
      case '==':
        return strict(`equals(${left}, ${right})`, bothNullable ? `and(isNull(${left}), isNull(${right}))` : '0');
      case '!=':
        return strict(`notEquals(${left}, ${right})`, bothNullable ? `or(isNotNull(${left}), isNotNull(${right}))` : '1');
      case '<':
        return strict(`less(${left}, ${right})`, '0');
      case '<=':
        return strict(`lessOrEquals(${left}, ${right})`, '0');
      case '>':
        return strict(`greater(${left}, ${right})`, '0');
      case '>=':
        return strict(`greaterOrEquals(${left}, ${right})`, '0');
      case 'like':
        return strict(`like(${left}, ${right})`, '0');
      case 'not like':
        return strict(`notLike(${left}, ${right})`, '1');
      case 'ilike':
        return strict(`ilike(${left}, ${right})`, '0');
      case 'not ilike':
        return strict(`notILike(${left}, ${right})`, '1');
      case '=~':
        return strict(`match(${left}, ${right})`, '0');
      case '!~':
        return strict(`not(match(${left}, ${right}))`, '1');
      case '=~*':
        return strict(`match(${left}, concat('(?i)', ${right}))`, '0');
      case '!~*':
        return strict(`not(match(${left}, concat('(?i)', ${right})))`, '1');
    }
    throw new HogQLQueryError(`Unsupported comparison ${op}`);
  }

  /** `person_id IN COHORT 3`: the cohort's membership condition on the left side. */
  private printCohortMembership(expr: CompareOperation, scope: Scope): string {
    const { right } = expr;
    if (right.kind !== 'Constant' || typeof right.value !== 'number' || !Number.isSafeInteger(right.value)) {
      throw new HogQLQueryError('IN COHORT takes the integer id of a cohort');
    }
    const left = this.print(expr.left, scope);
    const cohorts = this.options.cohorts;
    if (cohorts === undefined) return '0';
    const condition = cohorts.get(right.value);
    if (condition === undefined) throw new HogQLQueryError(`Cohort ${right.value} does not exist.`);
    const member = `(${condition.replaceAll(COHORT_PERSON, left)})`;
    return expr.op === 'in cohort' ? member : `not(${member})`;
  }

  private printCall(expr: Call, scope: Scope): string {
    const def = findFunction(expr.name);
    if (!def) throw new HogQLQueryError(unsupportedFunctionMessage(expr.name));
    let args = expr.args;
    // count(*) counts rows.
    if (def.clickhouse === 'count' && args.length === 1 && args[0]!.kind === 'Field' && args[0]!.chain.length === 1 && args[0]!.chain[0] === '*') args = [];
    if (args.length < def.minArgs || args.length > def.maxArgs) {
      const expected = def.minArgs === def.maxArgs ? `${def.minArgs}` : def.maxArgs >= 1000 ? `at least ${def.minArgs}` : `${def.minArgs} to ${def.maxArgs}`;
      throw new HogQLQueryError(`Function '${expr.name}' expects ${expected} argument${expected === '1' ? '' : 's'}, got ${args.length}`);
    }
    if (expr.params !== null && !def.parametric) throw new HogQLQueryError(`Function '${expr.name}' takes no parameters`);
    if (expr.distinct && !def.aggregate) throw new HogQLQueryError(`DISTINCT is only for aggregate functions, not '${expr.name}'`);
    let printedArgs = args.map((arg) => this.print(arg, scope));
    if (expr.name.toLowerCase() === 'concat') printedArgs = printedArgs.map((arg) => `ifNull(toString(${arg}), '')`);
    if (def.castTo) printedArgs.push(`'${def.castTo}'`);
    // Text is parsed leniently (garbage is NULL); times and numbers are converted as they are.
    if (def.clickhouse === 'parseDateTime64BestEffortOrNull') {
      return this.isText(args[0]!)
        ? `parseDateTime64BestEffortOrNull(${printedArgs[0]}, 6, ${this.timezone})`
        : `toDateTime64(${printedArgs[0]}, 6, ${this.timezone})`;
    }
    if (def.clickhouse === 'toDateOrNull' && !this.isText(args[0]!)) return `toDate(${printedArgs[0]})`;
    if (def.suffix === 'precision-timezone') printedArgs.push('6', this.timezone);
    const params = expr.params !== null ? `(${expr.params.map((param) => this.print(param, scope)).join(', ')})` : '';
    const filter = expr.filterExpr ? ` FILTER (WHERE ${this.print(expr.filterExpr, scope)})` : '';
    return `${def.clickhouse}${params}(${expr.distinct ? 'DISTINCT ' : ''}${printedArgs.join(', ')})${filter}`;
  }
}

/** Prints a parsed SELECT (or set of SELECTs) as ClickHouse SQL limited to the project in `params`. */
export function printSelect(query: SelectQuery | SelectSetQuery, options: PrintOptions): PrintedSelect {
  try {
    return new Printer(options).printTopLevel(query);
  } catch (error) {
    if (error instanceof RangeError) throw new HogQLSyntaxError('Query is nested too deeply', 0, 0);
    throw error;
  }
}
