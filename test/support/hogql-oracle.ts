import createHogQLParser, { type HogQLParser } from '@posthog/hogql-parser';
import type { Expr, JoinExpr, OrderExpr, SelectQuery, SelectSetQuery, WindowExpr } from '../../src/hogql/ast.js';

/**
 * PostHog's own HogQL parser (WASM), used only as a test oracle: both parsers' trees are reduced
 * to one neutral form (node names, children, values; no positions, no empty fields) to compare.
 */

let instance: Promise<HogQLParser> | null = null;

export function oracle(): Promise<HogQLParser> {
  instance ??= createHogQLParser();
  return instance;
}

type Neutral = unknown;

function isEmpty(value: unknown): boolean {
  return value === null || value === undefined || value === false || (Array.isArray(value) && value.length === 0 && false);
}

function prune(object: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => !isEmpty(value)));
}

function constant(value: unknown): Neutral {
  if (typeof value === 'number' && !Number.isFinite(value)) return { node: 'Constant', value: String(value) };
  return { node: 'Constant', value };
}

/** PostHog's JSON tree in the neutral form. */
export function neutralFromOracle(node: any): Neutral {
  if (node === null || node === undefined) return null;
  if (Array.isArray(node)) return node.map(neutralFromOracle);
  if (typeof node !== 'object') return node;
  if (node.node === 'Constant') {
    const value = node.value === 'Infinity' ? Infinity : node.value === '-Infinity' ? -Infinity : node.value === 'NaN' ? NaN : node.value;
    return constant(value);
  }
  if (node.node === 'Placeholder') return { node: 'Placeholder', chain: node.expr?.chain };
  if (node.node === 'CTE') return prune({ node: 'CTE', name: node.name, expr: neutralFromOracle(node.expr), cte_type: node.cte_type });
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'start' || key === 'end' || key === 'is_null_comparison_style' || (key === 'order_by' && node.node === 'Call')) continue;
    if (key === 'ctes' && Array.isArray(value)) {
      result.ctes = value.map(neutralFromOracle);
      continue;
    }
    if (key === 'window_exprs' && value && typeof value === 'object') {
      result.window_exprs = Object.fromEntries(Object.entries(value).map(([name, window]) => [name, neutralFromOracle(window)]));
      continue;
    }
    result[key] = neutralFromOracle(value);
  }
  if (node.node === 'Call' && result.params === null) delete result.params;
  return prune(result);
}

function neutralJoin(join: JoinExpr | null): Neutral {
  if (!join) return null;
  return prune({
    node: 'JoinExpr',
    table: neutral(join.table),
    table_args: join.tableArgs?.map(neutral) ?? null,
    alias: join.alias,
    join_type: join.joinType,
    constraint: join.constraint ? { node: 'JoinConstraint', expr: neutral(join.constraint.expr), constraint_type: join.constraint.type } : null,
    next_join: neutralJoin(join.nextJoin),
    table_final: join.final || null,
    sample: join.sample
      ? prune({
          node: 'SampleExpr',
          sample_value: prune({
            node: 'RatioExpr',
            left: neutral(join.sample.sample.left),
            right: join.sample.sample.right ? neutral(join.sample.sample.right) : null,
          }),
          offset_value: join.sample.offset
            ? prune({ node: 'RatioExpr', left: neutral(join.sample.offset.left), right: join.sample.offset.right ? neutral(join.sample.offset.right) : null })
            : null,
        })
      : null,
  });
}

function neutralOrder(order: OrderExpr): Neutral {
  return { node: 'OrderExpr', expr: neutral(order.expr), order: order.order };
}

function neutralWindow(window: WindowExpr): Neutral {
  const bound = (value: WindowExpr['frameStart']) => (value ? prune({ node: 'WindowFrameExpr', frame_type: value.type, frame_value: value.value }) : null);
  return prune({
    node: 'WindowExpr',
    partition_by: window.partitionBy?.map(neutral) ?? null,
    order_by: window.orderBy?.map(neutralOrder) ?? null,
    frame_method: window.frameMethod,
    frame_start: bound(window.frameStart),
    frame_end: bound(window.frameEnd),
  });
}

function neutralSelect(query: SelectQuery): Neutral {
  return prune({
    node: 'SelectQuery',
    ctes: query.ctes?.map((cte) => ({ node: 'CTE', name: cte.name, expr: neutral(cte.expr), cte_type: cte.cteType })) ?? null,
    distinct: query.distinct || null,
    select: query.select.map(neutral),
    select_from: neutralJoin(query.selectFrom),
    array_join_op: query.arrayJoinOp,
    array_join_list: query.arrayJoinList?.map(neutral) ?? null,
    prewhere: query.prewhere ? neutral(query.prewhere) : null,
    where: query.where ? neutral(query.where) : null,
    group_by: query.groupBy?.map(neutral) ?? null,
    having: query.having ? neutral(query.having) : null,
    window_exprs: query.windowExprs ? Object.fromEntries(Object.entries(query.windowExprs).map(([name, window]) => [name, neutralWindow(window)])) : null,
    order_by: query.orderBy?.map(neutralOrder) ?? null,
    limit: query.limit ? neutral(query.limit) : null,
    offset: query.offset ? neutral(query.offset) : null,
    limit_by: query.limitBy
      ? prune({
          node: 'LimitByExpr',
          n: neutral(query.limitBy.n),
          offset_value: query.limitBy.offset ? neutral(query.limitBy.offset) : null,
          exprs: query.limitBy.exprs.map(neutral),
        })
      : null,
    limit_with_ties: query.limitWithTies || null,
  });
}

/** Tally's tree in the neutral form. */
export function neutral(expr: Expr | SelectQuery | SelectSetQuery | OrderExpr): Neutral {
  switch (expr.kind) {
    case 'Constant':
      return constant(expr.value);
    case 'Field':
      return { node: 'Field', chain: expr.chain };
    case 'Placeholder':
      return { node: 'Placeholder', chain: expr.chain };
    case 'Alias':
      return { node: 'Alias', alias: expr.alias, expr: neutral(expr.expr) };
    case 'ArithmeticOperation':
      return { node: 'ArithmeticOperation', op: expr.op, left: neutral(expr.left), right: neutral(expr.right) };
    case 'CompareOperation':
      return { node: 'CompareOperation', op: expr.op, left: neutral(expr.left), right: neutral(expr.right) };
    case 'And':
    case 'Or':
      return { node: expr.kind, exprs: expr.exprs.map(neutral) };
    case 'Not':
      return { node: 'Not', expr: neutral(expr.expr) };
    case 'Between':
      return prune({ node: 'BetweenExpr', expr: neutral(expr.expr), low: neutral(expr.low), high: neutral(expr.high), negated: expr.negated });
    case 'Call':
      return prune({
        node: 'Call',
        name: expr.name,
        args: expr.args.map(neutral),
        params: expr.params?.map(neutral) ?? null,
        distinct: expr.distinct,
        filter_expr: expr.filterExpr ? neutral(expr.filterExpr) : null,
      });
    case 'ExprCall':
      return { node: 'ExprCall', expr: neutral(expr.expr), args: expr.args.map(neutral) };
    case 'Lambda':
      return { node: 'Lambda', args: expr.args, expr: neutral(expr.expr) };
    case 'ArrayAccess':
      return prune({ node: 'ArrayAccess', array: neutral(expr.array), property: neutral(expr.property), nullish: expr.nullish });
    case 'TupleAccess':
      return prune({ node: 'TupleAccess', tuple: neutral(expr.tuple), index: expr.index, nullish: expr.nullish });
    case 'Array':
    case 'Tuple':
      return { node: expr.kind, exprs: expr.exprs.map(neutral) };
    case 'Dict':
      return { node: 'Dict', items: expr.items.map(([key, value]) => [neutral(key), neutral(value)]) };
    case 'TypeCast':
      return { node: 'TypeCast', expr: neutral(expr.expr), type_name: expr.typeName };
    case 'WindowFunction':
      return prune({
        node: 'WindowFunction',
        name: expr.name,
        exprs: expr.exprs.map(neutral),
        args: expr.args?.map(neutral) ?? [],
        over_expr: expr.overExpr ? neutralWindow(expr.overExpr) : null,
        over_identifier: expr.overIdentifier,
      });
    case 'OrderExpr':
      return neutralOrder(expr);
    case 'SelectQuery':
      return neutralSelect(expr);
    case 'SelectSetQuery':
      return {
        node: 'SelectSetQuery',
        initial_select_query: neutral(expr.initial),
        subsequent_select_queries: expr.subsequent.map((item) => ({ node: 'SelectSetNode', select_query: neutral(item.query), set_operator: item.operator })),
      };
  }
}
