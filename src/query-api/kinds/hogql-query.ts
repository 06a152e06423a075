import { ValidationError } from '../../errors.js';
import type { Expr, SelectQuery, SelectSetQuery } from '../../hogql/ast.js';
import { printHogQL } from '../../hogql/hogql-text.js';
import { parseSelect } from '../../hogql/parser.js';
import { printSelect, type PlaceholderValue } from '../../hogql/printer.js';
import type { CohortSqlResolver } from '../../query/resolvers.js';
import { cohortConditions } from '../cohort-conditions.js';
import { SqlParams } from '../../query/sql-params.js';
import type { Warehouse } from '../../storage/warehouse/warehouse.js';
import { withHogQLErrors } from '../hogql-errors.js';
import { isObject, requiredString } from '../node-fields.js';
import type { QueryKind, QueryNode, QueryResponse, QueryRunContext } from '../query-kind.js';
import { executeSelect, type ExecutionLimits } from '../warehouse-execution.js';

/** Rows a query without LIMIT answers (PostHog's DEFAULT_RETURNED_ROWS). */
export const DEFAULT_RETURNED_ROWS = 100;
/** Most rows any query answers (PostHog's MAX_SELECT_RETURNED_ROWS). */
export const MAX_SELECT_RETURNED_ROWS = 50_000;

function isPlainValue(value: unknown): value is string | number | boolean | null {
  return value === null || typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
}

/** The request's `values`: each a string, number, boolean, null, or a list of those (how long IN lists are sent). */
export function placeholderValues(value: unknown, path: string): Record<string, PlaceholderValue> | null {
  if (value === undefined || value === null) return null;
  if (!isObject(value)) throw new ValidationError(path, 'Values must be an object of placeholder names and values.');
  for (const [name, item] of Object.entries(value)) {
    const valid = isPlainValue(item) || (Array.isArray(item) && item.every(isPlainValue));
    if (!valid) throw new ValidationError(`${path}.${name}`, `The value of {${name}} must be a string, number, boolean, null or a list of them.`);
  }
  return value as Record<string, PlaceholderValue>;
}

function constant(value: number): Expr {
  return { kind: 'Constant', value };
}

/** The LIMIT PostHog's printer applies to a top-level SELECT: at most the maximum. */
function clampedLimit(limit: Expr): Expr {
  if (limit.kind === 'Constant' && typeof limit.value === 'number') return constant(Math.min(limit.value, MAX_SELECT_RETURNED_ROWS));
  return { kind: 'Call', name: 'min2', args: [constant(MAX_SELECT_RETURNED_ROWS), limit], params: null, distinct: false };
}

export interface Pagination {
  limit: number;
  offset: number;
}

/**
 * PostHog's paginator: a top-level SELECT without LIMIT gets 100 rows (one more is read to
 * know whether there are more) from its own OFFSET; an explicit LIMIT is clamped and answers no
 * pagination fields. Each SELECT of a top-level UNION is clamped the same way.
 */
function paginate(query: SelectQuery | SelectSetQuery): Pagination | null {
  if (query.kind === 'SelectSetQuery') {
    for (const item of [query.initial, ...query.subsequent.map((next) => next.query)]) {
      if (item.kind === 'SelectQuery') item.limit = item.limit ? clampedLimit(item.limit) : constant(MAX_SELECT_RETURNED_ROWS);
    }
    return null;
  }
  if (query.limit !== null) {
    query.limit = clampedLimit(query.limit);
    return null;
  }
  let offset = 0;
  if (query.offset !== null) {
    if (query.offset.kind !== 'Constant' || typeof query.offset.value !== 'number' || !Number.isSafeInteger(query.offset.value) || query.offset.value < 0) {
      throw new ValidationError('query.query', 'OFFSET without LIMIT must be a non-negative integer.');
    }
    offset = query.offset.value;
  }
  query.limit = constant(DEFAULT_RETURNED_ROWS + 1);
  return { limit: DEFAULT_RETURNED_ROWS, offset };
}

/** HogQLQuery: a HogQL SELECT, parsed and printed by Tally, run on the project's rows. */
export class HogQLQueryKind implements QueryKind {
  constructor(
    private readonly warehouse: Warehouse,
    private readonly limits: ExecutionLimits,
    private readonly cohorts: CohortSqlResolver,
  ) {}

  async run(node: QueryNode, { project, path }: QueryRunContext): Promise<QueryResponse> {
    const text = requiredString(node, 'query', path);
    const values = placeholderValues(node.values, `${path}.values`);
    const attr = `${path}.query`;
    const params = new SqlParams({ team_id: project.id });
    const parsedQuery = await withHogQLErrors(attr, `${path}.values`, () => parseSelect(text));
    const cohorts = await cohortConditions(parsedQuery, this.cohorts, params, attr);
    const { parsed, pagination, printed } = await withHogQLErrors(attr, `${path}.values`, () => {
      const hogql = printHogQL(parsedQuery);
      let paging: Pagination | null;
      try {
        paging = paginate(parsedQuery);
      } catch (error) {
        if (error instanceof ValidationError) throw new ValidationError(attr, error.detail, 'hogql_query_error');
        throw error;
      }
      return { parsed: hogql, pagination: paging, printed: printSelect(parsedQuery, { params, timezone: project.timezone, values, cohorts }) };
    });
    const executed = await executeSelect(this.warehouse, printed.sql, params.all, printed.outputAliases, this.limits, attr);
    let rows = executed.rows;
    let hasMore: boolean | null = null;
    if (pagination) {
      hasMore = rows.length > pagination.limit;
      rows = rows.slice(0, pagination.limit);
    } else if (rows.length > MAX_SELECT_RETURNED_ROWS) {
      rows = rows.slice(0, MAX_SELECT_RETURNED_ROWS);
    }
    return {
      results: rows,
      columns: printed.columns,
      types: printed.columns.map((column, index) => [column, executed.types[index] ?? 'String']),
      hogql: parsed,
      query: text,
      hasMore,
      limit: pagination?.limit ?? null,
      offset: pagination?.offset ?? null,
      timings: [],
      modifiers: {},
    };
  }
}
