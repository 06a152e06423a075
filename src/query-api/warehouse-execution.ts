import { DateTime } from 'luxon';
import { ApiError, ValidationError } from '../errors.js';
import type { QueryParams, Warehouse } from '../storage/warehouse/warehouse.js';

/**
 * Runs a printed HogQL query on the warehouse under the limits every query API call has:
 * read-only, the query timeout, a memory cap, and AST size caps. Reads the column types, and
 * turns values into PostHog's JSON (numbers for 64-bit integers, ISO times with `Z`).
 */

/** Memory one query may use in the warehouse. */
export const QUERY_MAX_MEMORY_BYTES = 4_000_000_000;

/** Seconds past the warehouse's own time limit after which the answer is given up on. */
const TIMEOUT_GRACE_SECONDS = 3;

const TIMEOUT_DETAIL =
  'Query has hit the max execution time before completing. See our docs for how to improve your query performance. You may need to materialize.';

export class QueryTimeout extends ApiError {
  constructor() {
    super(504, 'server_error', 'query_timeout', TIMEOUT_DETAIL);
  }
}

/** ClickHouse error codes that are Tally's fault, not the query's: a 500, logged. */
const INTERNAL_CODES = new Set([60, 81, 209, 210, 242, 999, 1000]);
const TIMEOUT_CODES = new Set([159, 160, 394]);
const MEMORY_CODES = new Set([241]);

interface ClickhouseFailure {
  code: number;
  name: string;
  message: string;
}

/** ClickHouse quotes the printed SQL after the message (`… In scope SELECT …`); the query's author never wrote it. */
function withoutPrintedSql(message: string): string {
  const scope = message.search(/:?\s*in scope /i);
  return (scope >= 0 ? message.slice(0, scope) : message).trim();
}

function clickhouseFailure(error: unknown): ClickhouseFailure | null {
  if (!(error instanceof Error)) return null;
  const withCode = error as Error & { code?: unknown; type?: unknown };
  const text = error.message;
  const match = /Code:\s*(\d+)\.\s*(?:DB::Exception:\s*)?([\s\S]*?)(?:\s*\(([A-Z_]+)\))?(?:\s*\(version [^)]*\))?\s*$/.exec(text);
  if (match) return { code: Number(match[1]), message: withoutPrintedSql(match[2]!), name: match[3] ?? 'clickhouse_error' };
  if (typeof withCode.code === 'string' && /^\d+$/.test(withCode.code)) {
    return { code: Number(withCode.code), message: withoutPrintedSql(text), name: typeof withCode.type === 'string' ? withCode.type : 'clickhouse_error' };
  }
  return null;
}

/** A warehouse failure as the API answers it: 504 on time, 400 for what the query did, the error itself otherwise. */
export function warehouseError(error: unknown, attr: string): unknown {
  const failure = clickhouseFailure(error);
  if (!failure || INTERNAL_CODES.has(failure.code)) return error;
  if (TIMEOUT_CODES.has(failure.code)) return new QueryTimeout();
  if (MEMORY_CODES.has(failure.code))
    return new ValidationError(attr, `The query needs more memory than a query may use: ${failure.message}`, 'memory_limit_exceeded');
  return new ValidationError(attr, failure.message, failure.name.toLowerCase());
}

export interface ExecutionLimits {
  timeoutSeconds: number;
}

export interface ExecutedQuery {
  rows: unknown[][];
  types: string[];
}

function settings(limits: ExecutionLimits): string {
  return [
    'readonly=2',
    `max_execution_time=${Math.max(1, Math.ceil(limits.timeoutSeconds))}`,
    "timeout_overflow_mode='throw'",
    `max_memory_usage=${QUERY_MAX_MEMORY_BYTES}`,
    'max_ast_elements=4000000',
    'max_expanded_ast_elements=4000000',
    'max_query_size=10000000',
    'output_format_json_quote_64bit_integers=0',
    'output_format_json_quote_denormals=0',
    'output_format_json_named_tuples_as_objects=0',
  ].join(', ');
}

/** `work`, or a 504 once `seconds` (and a grace for the warehouse's own limit to answer first) have passed. */
export async function withDeadline<T>(work: Promise<T>, seconds: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new QueryTimeout()), (seconds + TIMEOUT_GRACE_SECONDS) * 1000);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

const BARE_TYPE = /^(?:Nullable|LowCardinality)\((.*)\)$/;

function bareType(type: string): string {
  let current = type;
  for (let match = BARE_TYPE.exec(current); match; match = BARE_TYPE.exec(current)) current = match[1]!;
  return current;
}

/** A warehouse time (`2020-01-10 12:00:00.000000` in `zone`) as PostHog writes it: ISO in UTC with `Z`, fractions only when not zero. */
export function isoTime(text: string, zone = 'UTC'): string {
  const match = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})(?:\.(\d+))?$/.exec(text);
  if (!match) return text;
  const fraction = match[3] && /[1-9]/.test(match[3]) ? `.${match[3]}` : '';
  if (zone === 'UTC') return `${match[1]}T${match[2]}${fraction}Z`;
  const utc = DateTime.fromSQL(`${match[1]} ${match[2]}`, { zone }).toUTC();
  if (!utc.isValid) return text;
  return `${utc.toFormat("yyyy-MM-dd'T'HH:mm:ss")}${fraction}Z`;
}

function converter(type: string): ((value: unknown) => unknown) | null {
  const bare = bareType(type);
  const time = /^DateTime(?:64)?(?:\((?:\d+)?(?:,\s*)?(?:'([^']+)')?\))?$/.exec(bare);
  if (time) {
    const zone = time[1] ?? 'UTC';
    return (value) => (typeof value === 'string' ? isoTime(value, zone) : value);
  }
  return null;
}

/** Runs `sql` (a SELECT) and returns its rows as lists, in `aliases` order, with each column's type. */
export async function executeSelect(
  warehouse: Warehouse,
  sql: string,
  params: QueryParams,
  aliases: string[],
  limits: ExecutionLimits,
  attr: string,
): Promise<ExecutedQuery> {
  const limited = `${sql} SETTINGS ${settings(limits)}`;
  try {
    return await withDeadline(
      (async () => {
        const { types, rows } = await warehouse.queryColumns(limited, params);
        const converters = aliases.map((_, index) => converter(types[index] ?? ''));
        return {
          types: types.slice(0, aliases.length),
          rows: rows.map((row) =>
            aliases.map((_, index) => {
              const value = row[index];
              const convert = converters[index];
              return convert ? convert(value) : value;
            }),
          ),
        };
      })(),
      limits.timeoutSeconds,
    );
  } catch (error) {
    throw warehouseError(error, attr);
  }
}
