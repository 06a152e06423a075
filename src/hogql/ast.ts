/**
 * The HogQL syntax tree. The parser builds it with PostHog's desugaring (`a ?? b` is
 * `ifNull(a, b)`, `a ? b : c` is `if(a, b, c)`, `a || b` is `concat(a, b)`, `INTERVAL 1 DAY` is
 * `toIntervalDay(1)`, `-x` is `0 - x`), so trees compare with PostHog's parser node for node.
 * `start`/`end` are character offsets into the text, for error positions.
 */

export type ConstantValue = string | number | boolean | null;

interface Located {
  start?: number;
  end?: number;
}

export interface Constant extends Located {
  kind: 'Constant';
  value: ConstantValue;
}

/** `a.b.c`, `properties.$browser`, `*`, `e.*`. */
export interface Field extends Located {
  kind: 'Field';
  chain: string[];
}

/** `{name}`: a value from the request's `values`. */
export interface Placeholder extends Located {
  kind: 'Placeholder';
  chain: string[];
}

export interface Alias extends Located {
  kind: 'Alias';
  expr: Expr;
  alias: string;
}

export type ArithmeticOp = '+' | '-' | '*' | '/' | '%';

export interface ArithmeticOperation extends Located {
  kind: 'ArithmeticOperation';
  op: ArithmeticOp;
  left: Expr;
  right: Expr;
}

export const COMPARE_OPS = [
  '==',
  '!=',
  '<',
  '<=',
  '>',
  '>=',
  'like',
  'not like',
  'ilike',
  'not ilike',
  'in',
  'not in',
  'in cohort',
  'not in cohort',
  '=~',
  '!~',
  '=~*',
  '!~*',
] as const;
export type CompareOp = (typeof COMPARE_OPS)[number];

export interface CompareOperation extends Located {
  kind: 'CompareOperation';
  op: CompareOp;
  left: Expr;
  right: Expr;
}

export interface And extends Located {
  kind: 'And';
  exprs: Expr[];
}

export interface Or extends Located {
  kind: 'Or';
  exprs: Expr[];
}

export interface Not extends Located {
  kind: 'Not';
  expr: Expr;
}

export interface Between extends Located {
  kind: 'Between';
  expr: Expr;
  low: Expr;
  high: Expr;
  negated: boolean;
}

export interface Call extends Located {
  kind: 'Call';
  name: string;
  args: Expr[];
  /** The parameters of a parametric function: `quantile(0.5)(x)` has params `[0.5]`. */
  params: Expr[] | null;
  distinct: boolean;
  /** `count() FILTER (WHERE …)`. */
  filterExpr?: Expr | null;
}

/** A call of something that is not a plain function name: `a.b(1)`, `(x -> x)(1)`. */
export interface ExprCall extends Located {
  kind: 'ExprCall';
  expr: Expr;
  args: Expr[];
}

export interface Lambda extends Located {
  kind: 'Lambda';
  args: string[];
  expr: Expr;
}

export interface ArrayAccess extends Located {
  kind: 'ArrayAccess';
  array: Expr;
  property: Expr;
  nullish: boolean;
}

export interface TupleAccess extends Located {
  kind: 'TupleAccess';
  tuple: Expr;
  index: number;
  nullish: boolean;
}

export interface ArrayLiteral extends Located {
  kind: 'Array';
  exprs: Expr[];
}

export interface Tuple extends Located {
  kind: 'Tuple';
  exprs: Expr[];
}

export interface Dict extends Located {
  kind: 'Dict';
  items: [Expr, Expr][];
}

export interface TypeCast extends Located {
  kind: 'TypeCast';
  expr: Expr;
  /** Lower-cased, as PostHog keeps it. */
  typeName: string;
}

export type FrameBoundType = 'CURRENT ROW' | 'PRECEDING' | 'FOLLOWING';

export interface WindowFrameBound {
  type: FrameBoundType;
  /** Null for UNBOUNDED (and CURRENT ROW). */
  value: number | null;
}

export interface WindowExpr extends Located {
  kind: 'WindowExpr';
  partitionBy: Expr[] | null;
  orderBy: OrderExpr[] | null;
  frameMethod: 'ROWS' | 'RANGE' | null;
  frameStart: WindowFrameBound | null;
  frameEnd: WindowFrameBound | null;
}

export interface WindowFunction extends Located {
  kind: 'WindowFunction';
  name: string;
  exprs: Expr[];
  args: Expr[] | null;
  overExpr: WindowExpr | null;
  overIdentifier: string | null;
}

export interface OrderExpr extends Located {
  kind: 'OrderExpr';
  expr: Expr;
  order: 'ASC' | 'DESC';
}

export type JoinType = string;

export interface JoinConstraint extends Located {
  kind: 'JoinConstraint';
  expr: Expr;
  type: 'ON' | 'USING';
}

export interface JoinExpr extends Located {
  kind: 'JoinExpr';
  /** A table name (`events`, `db.t`), a subquery, or a placeholder. */
  table: Field | SelectQuery | SelectSetQuery | Placeholder;
  /** Arguments of a table function: `numbers(10)`. */
  tableArgs: Expr[] | null;
  alias: string | null;
  /** `JOIN`, `LEFT JOIN`, `CROSS JOIN`, … for every table but the first. */
  joinType: JoinType | null;
  constraint: JoinConstraint | null;
  nextJoin: JoinExpr | null;
  final: boolean;
  sample: SampleExpr | null;
}

export interface RatioExpr {
  left: Constant;
  right: Constant | null;
}

export interface SampleExpr {
  kind: 'SampleExpr';
  sample: RatioExpr;
  offset: RatioExpr | null;
}

export interface CTE extends Located {
  kind: 'CTE';
  name: string;
  expr: Expr;
  cteType: 'subquery' | 'column';
}

export interface LimitBy {
  n: Expr;
  offset: Expr | null;
  exprs: Expr[];
}

export interface SelectQuery extends Located {
  kind: 'SelectQuery';
  ctes: CTE[] | null;
  distinct: boolean;
  select: Expr[];
  selectFrom: JoinExpr | null;
  arrayJoinOp: 'ARRAY JOIN' | 'LEFT ARRAY JOIN' | 'INNER ARRAY JOIN' | null;
  arrayJoinList: Expr[] | null;
  prewhere: Expr | null;
  where: Expr | null;
  groupBy: Expr[] | null;
  having: Expr | null;
  windowExprs: Record<string, WindowExpr> | null;
  orderBy: OrderExpr[] | null;
  limit: Expr | null;
  offset: Expr | null;
  limitBy: LimitBy | null;
  limitWithTies: boolean;
}

export type SetOperator = 'UNION ALL' | 'UNION DISTINCT' | 'INTERSECT' | 'INTERSECT DISTINCT' | 'EXCEPT';

export interface SelectSetQuery extends Located {
  kind: 'SelectSetQuery';
  initial: SelectQuery | SelectSetQuery;
  subsequent: { operator: SetOperator; query: SelectQuery | SelectSetQuery }[];
}

/**
 * SQL made by Tally's own code (property filters, action conditions), reading the query's
 * `events` table; never produced by the parser, so no query text can reach it.
 */
export interface RawSql extends Located {
  kind: 'RawSql';
  sql: string;
  /** Lazy joins of `events` the SQL reads (`person`, `pdi`, `group_0`…). */
  joins: string[];
}

export type Expr =
  | RawSql
  | Constant
  | Field
  | Placeholder
  | Alias
  | ArithmeticOperation
  | CompareOperation
  | And
  | Or
  | Not
  | Between
  | Call
  | ExprCall
  | Lambda
  | ArrayAccess
  | TupleAccess
  | ArrayLiteral
  | Tuple
  | Dict
  | TypeCast
  | WindowFunction
  | SelectQuery
  | SelectSetQuery;

export function isSelect(expr: Expr): expr is SelectQuery | SelectSetQuery {
  return expr.kind === 'SelectQuery' || expr.kind === 'SelectSetQuery';
}

export function emptySelect(select: Expr[]): SelectQuery {
  return {
    kind: 'SelectQuery',
    ctes: null,
    distinct: false,
    select,
    selectFrom: null,
    arrayJoinOp: null,
    arrayJoinList: null,
    prewhere: null,
    where: null,
    groupBy: null,
    having: null,
    windowExprs: null,
    orderBy: null,
    limit: null,
    offset: null,
    limitBy: null,
    limitWithTies: false,
  };
}
