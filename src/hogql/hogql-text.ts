import type { ConstantValue, Expr, JoinExpr, OrderExpr, SelectQuery, SelectSetQuery, WindowExpr } from './ast.js';

/**
 * Prints a tree back as HogQL, in PostHog's style: operators as functions (`plus(1, 2)`,
 * `equals(event, 'a')`). Columns without an alias are named with it (`count()`), and
 * responses carry the query re-printed.
 */

const ARITHMETIC: Record<string, string> = { '+': 'plus', '-': 'minus', '*': 'multiply', '/': 'divide', '%': 'modulo' };
const COMPARISON: Record<string, string> = {
  '==': 'equals',
  '!=': 'notEquals',
  '<': 'less',
  '<=': 'lessOrEquals',
  '>': 'greater',
  '>=': 'greaterOrEquals',
  like: 'like',
  'not like': 'notLike',
  ilike: 'ilike',
  'not ilike': 'notILike',
  in: 'in',
  'not in': 'notIn',
  'in cohort': 'inCohort',
  'not in cohort': 'notInCohort',
  '=~': 'match',
  '!~': 'notMatch',
  '=~*': 'imatch',
  '!~*': 'notIMatch',
};

const PLAIN_IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

export function hogqlIdentifier(name: string): string {
  if (PLAIN_IDENTIFIER.test(name)) return name;
  return `\`${name.replace(/\\/g, '\\\\').replace(/`/g, '\\`')}\``;
}

export function hogqlConstant(value: ConstantValue): string {
  if (value === null) return 'NULL';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') {
    if (Number.isNaN(value)) return 'NaN';
    if (!Number.isFinite(value)) return value > 0 ? 'Inf' : '-Inf';
    return String(value);
  }
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t').replace(/\0/g, '\\0')}'`;
}

function list(exprs: Expr[]): string {
  return exprs.map(printHogQL).join(', ');
}

function windowText(window: WindowExpr): string {
  const parts: string[] = [];
  if (window.partitionBy) parts.push(`PARTITION BY ${list(window.partitionBy)}`);
  if (window.orderBy) parts.push(`ORDER BY ${window.orderBy.map(orderText).join(', ')}`);
  if (window.frameMethod && window.frameStart) {
    const bound = (value: NonNullable<WindowExpr['frameStart']>) =>
      value.type === 'CURRENT ROW' ? 'CURRENT ROW' : `${value.value === null ? 'UNBOUNDED' : value.value} ${value.type}`;
    parts.push(
      window.frameEnd
        ? `${window.frameMethod} BETWEEN ${bound(window.frameStart)} AND ${bound(window.frameEnd)}`
        : `${window.frameMethod} ${bound(window.frameStart)}`,
    );
  }
  return parts.join(' ');
}

function orderText(order: OrderExpr): string {
  return `${printHogQL(order.expr)} ${order.order}`;
}

function joinText(join: JoinExpr): string {
  let text = '';
  if (join.joinType) text += ` ${join.joinType} `;
  const table = join.table;
  if (table.kind === 'Field') text += table.chain.map(hogqlIdentifier).join('.');
  else if (table.kind === 'Placeholder') text += `{${table.chain.join('.')}}`;
  else text += `(${printHogQL(table)})`;
  if (join.tableArgs) text += `(${list(join.tableArgs)})`;
  if (join.alias !== null) text += ` AS ${hogqlIdentifier(join.alias)}`;
  if (join.final) text += ' FINAL';
  if (join.constraint)
    text += ` ${join.constraint.type} ${join.constraint.type === 'USING' ? `(${printHogQL(join.constraint.expr)})` : printHogQL(join.constraint.expr)}`;
  if (join.nextJoin) text += joinText(join.nextJoin);
  return text;
}

function selectText(query: SelectQuery): string {
  const parts: string[] = [];
  if (query.ctes && query.ctes.length > 0) {
    parts.push(
      `WITH ${query.ctes
        .map((cte) =>
          cte.cteType === 'subquery' ? `${hogqlIdentifier(cte.name)} AS (${printHogQL(cte.expr)})` : `${printHogQL(cte.expr)} AS ${hogqlIdentifier(cte.name)}`,
        )
        .join(', ')}`,
    );
  }
  parts.push(`SELECT${query.distinct ? ' DISTINCT' : ''} ${list(query.select)}`);
  if (query.selectFrom) parts.push(`FROM ${joinText(query.selectFrom).trim()}`);
  if (query.arrayJoinOp && query.arrayJoinList) parts.push(`${query.arrayJoinOp} ${list(query.arrayJoinList)}`);
  if (query.prewhere) parts.push(`PREWHERE ${printHogQL(query.prewhere)}`);
  if (query.where) parts.push(`WHERE ${printHogQL(query.where)}`);
  if (query.groupBy) parts.push(`GROUP BY ${list(query.groupBy)}`);
  if (query.having) parts.push(`HAVING ${printHogQL(query.having)}`);
  if (query.windowExprs) {
    parts.push(
      `WINDOW ${Object.entries(query.windowExprs)
        .map(([name, window]) => `${hogqlIdentifier(name)} AS (${windowText(window)})`)
        .join(', ')}`,
    );
  }
  if (query.orderBy) parts.push(`ORDER BY ${query.orderBy.map(orderText).join(', ')}`);
  if (query.limitBy)
    parts.push(
      `LIMIT ${printHogQL(query.limitBy.n)}${query.limitBy.offset ? ` OFFSET ${printHogQL(query.limitBy.offset)}` : ''} BY ${list(query.limitBy.exprs)}`,
    );
  if (query.limit) parts.push(`LIMIT ${printHogQL(query.limit)}${query.limitWithTies ? ' WITH TIES' : ''}`);
  if (query.offset) parts.push(`OFFSET ${printHogQL(query.offset)}`);
  return parts.join(' ');
}

function setText(query: SelectSetQuery): string {
  const wrap = (item: SelectQuery | SelectSetQuery) => (item.kind === 'SelectSetQuery' ? `(${setText(item)})` : selectText(item));
  return [wrap(query.initial), ...query.subsequent.map((item) => `${item.operator} ${wrap(item.query)}`)].join(' ');
}

export function printHogQL(expr: Expr): string {
  switch (expr.kind) {
    case 'RawSql':
      return '<filter>';
    case 'Constant':
      return hogqlConstant(expr.value);
    case 'Field':
      return expr.chain.map((part) => (part === '*' ? '*' : hogqlIdentifier(part))).join('.');
    case 'Placeholder':
      return `{${expr.chain.join('.')}}`;
    case 'Alias':
      return `${printHogQL(expr.expr)} AS ${hogqlIdentifier(expr.alias)}`;
    case 'ArithmeticOperation':
      return `${ARITHMETIC[expr.op]}(${printHogQL(expr.left)}, ${printHogQL(expr.right)})`;
    case 'CompareOperation':
      return `${COMPARISON[expr.op]}(${printHogQL(expr.left)}, ${printHogQL(expr.right)})`;
    case 'And':
      return `and(${list(expr.exprs)})`;
    case 'Or':
      return `or(${list(expr.exprs)})`;
    case 'Not':
      return `not(${printHogQL(expr.expr)})`;
    case 'Between':
      return `${printHogQL(expr.expr)} ${expr.negated ? 'NOT ' : ''}BETWEEN ${printHogQL(expr.low)} AND ${printHogQL(expr.high)}`;
    case 'Call': {
      const params = expr.params ? `(${list(expr.params)})` : '';
      const filter = expr.filterExpr ? ` FILTER (WHERE ${printHogQL(expr.filterExpr)})` : '';
      return `${expr.name}${params}(${expr.distinct ? 'DISTINCT ' : ''}${list(expr.args)})${filter}`;
    }
    case 'ExprCall':
      return `${printHogQL(expr.expr)}(${list(expr.args)})`;
    case 'Lambda':
      return `(${expr.args.map(hogqlIdentifier).join(', ')}) -> ${printHogQL(expr.expr)}`;
    case 'ArrayAccess':
      return `${printHogQL(expr.array)}${expr.nullish ? '?.' : ''}[${printHogQL(expr.property)}]`;
    case 'TupleAccess':
      return `${printHogQL(expr.tuple)}${expr.nullish ? '?.' : '.'}${expr.index}`;
    case 'Array':
      return `[${list(expr.exprs)}]`;
    case 'Tuple':
      return `tuple(${list(expr.exprs)})`;
    case 'Dict':
      return `{${expr.items.map(([key, value]) => `${printHogQL(key)}: ${printHogQL(value)}`).join(', ')}}`;
    case 'TypeCast':
      return `CAST(${printHogQL(expr.expr)} AS ${expr.typeName})`;
    case 'WindowFunction': {
      const args = expr.args ? `(${list(expr.args)})` : '';
      const over = expr.overExpr ? `(${windowText(expr.overExpr)})` : hogqlIdentifier(expr.overIdentifier ?? '');
      return `${expr.name}(${list(expr.exprs)})${args} OVER ${over}`;
    }
    case 'SelectQuery':
      return selectText(expr);
    case 'SelectSetQuery':
      return setText(expr);
  }
}
