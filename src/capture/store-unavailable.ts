/**
 * Tells a store that could not do its work at the moment (unreachable, out of disk or memory,
 * busy, restarting) from one that refused what it was given. The first kind is retried as it
 * is; the second is a property of the events, which the consumer then narrows down.
 */

/** Operating-system and HTTP-client codes of a connection or a disk that failed. */
const SYSTEM_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOSPC',
  'EDQUOT',
  'EIO',
  'EMFILE',
  'ENFILE',
  'EBUSY',
  'EAGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ERR_SOCKET_CONNECTION_TIMEOUT',
]);

/** SQLite result codes (and their extended forms) of a busy, full, read-only or failing database. */
const SQLITE_PREFIXES = [
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
  'SQLITE_IOERR',
  'SQLITE_FULL',
  'SQLITE_NOMEM',
  'SQLITE_CANTOPEN',
  'SQLITE_READONLY',
  'SQLITE_PROTOCOL',
  'SQLITE_INTERRUPT',
];

/**
 * PostgreSQL SQLSTATE classes: connection exception, transaction rollback (serialization,
 * deadlock), insufficient resources, operator intervention (shutdown, cancel), system error.
 */
const POSTGRES_CLASSES = new Set(['08', '40', '53', '57', '58']);
const POSTGRES_CODES = new Set(['55P03', '55006']);

/** node-postgres reports a lost connection without a SQLSTATE. */
const POSTGRES_CONNECTION_MESSAGES = /Connection terminated|connection error and is not queryable|timeout exceeded when trying to connect/i;

/**
 * ClickHouse error codes of a server that is overloaded, out of memory or disk, read-only,
 * unreachable or shutting down: TIMEOUT_EXCEEDED, READONLY, TOO_MANY_SIMULTANEOUS_QUERIES,
 * SOCKET_TIMEOUT, NETWORK_ERROR, CANNOT_ALLOCATE_MEMORY, ABORTED, MEMORY_LIMIT_EXCEEDED,
 * TABLE_IS_READ_ONLY, NOT_ENOUGH_SPACE, TOO_MANY_PARTS, ALL_CONNECTION_TRIES_FAILED,
 * TOO_FEW_LIVE_REPLICAS, UNKNOWN_STATUS_OF_INSERT, QUERY_WAS_CANCELLED, SYSTEM_ERROR,
 * DEADLOCK_AVOIDED, KEEPER_EXCEPTION, POCO_EXCEPTION.
 */
const CLICKHOUSE_CODES = new Set([159, 164, 202, 209, 210, 173, 236, 241, 242, 243, 252, 279, 285, 319, 394, 425, 473, 999, 1000]);

/** chDB and ClickHouse's HTTP interface put the code in the message: `Code: 241. DB::Exception: …`. */
const CLICKHOUSE_MESSAGE_CODE = /\bCode: (\d+)\b/;

function codeOf(error: object): string | null {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : typeof code === 'number' ? String(code) : null;
}

function isUnavailableItself(error: object): boolean {
  const code = codeOf(error);
  if (code !== null) {
    if (SYSTEM_CODES.has(code)) return true;
    if (SQLITE_PREFIXES.some((prefix) => code.startsWith(prefix))) return true;
    if (/^[0-9A-Z]{5}$/.test(code) && (POSTGRES_CLASSES.has(code.slice(0, 2)) || POSTGRES_CODES.has(code))) return true;
    if (/^\d{1,4}$/.test(code) && CLICKHOUSE_CODES.has(Number(code))) return true;
  }
  const message = (error as { message?: unknown }).message;
  if (typeof message !== 'string') return false;
  if (POSTGRES_CONNECTION_MESSAGES.test(message)) return true;
  const clickhouseCode = CLICKHOUSE_MESSAGE_CODE.exec(message);
  return clickhouseCode !== null && CLICKHOUSE_CODES.has(Number(clickhouseCode[1]));
}

/** Whether `error`, or an error it was caused by, says a store is unavailable rather than refusing data. */
export function isStoreUnavailable(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 5) return false;
  if (isUnavailableItself(error)) return true;
  const { cause, errors } = error as { cause?: unknown; errors?: unknown };
  if (cause !== undefined && isStoreUnavailable(cause, depth + 1)) return true;
  return Array.isArray(errors) && errors.some((inner) => isStoreUnavailable(inner, depth + 1));
}
