import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import zlib from 'node:zlib';
import { Session } from 'chdb';
import { quotedIdentifier } from '../../../src/storage/warehouse/warehouse-sql.js';
import { declaredParameterTypes, parameterValue } from './query-parameters.js';

/**
 * A test fixture: the subset of ClickHouse's HTTP interface that `@clickhouse/client` uses,
 * executed by chDB, so the warehouse's ClickHouse-server path runs against an engine instead of
 * a recorder. Statements come in the body or the `query` parameter (the body then being an
 * insert's data); `param_<name>` are bound as query parameters; `database` picks the database;
 * other parameters are settings for that statement; an insert's data (any input format, RowBinary
 * included) goes through a file that the insert reads. Failures answer 500 with ClickHouse's
 * `Code: N. DB::Exception: … (NAME)` body and its `X-ClickHouse-Exception-Code` header.
 * One chDB session runs every statement, one at a time.
 */
export interface ChdbHttpServer {
  url: string;
  close(): Promise<void>;
}

export interface ChdbHttpServerOptions {
  /** The directory chDB keeps its databases in. */
  path: string;
  port?: number;
  host?: string;
}

/** URL parameters that are not settings. */
const NOT_SETTINGS = new Set([
  'query',
  'query_id',
  'database',
  'default_format',
  'session_id',
  'session_timeout',
  'session_check',
  'role',
  'user',
  'password',
  'quota_key',
  'compress',
  'decompress',
  'enable_http_compression',
  'wait_end_of_query',
  'buffer_size',
]);

/** Settings a real server applies that chDB runs without: every insert here is synchronous, which is what waiting for an async insert promises. */
const IGNORED_SETTINGS = new Set(['async_insert', 'wait_for_async_insert', 'async_insert_busy_timeout_ms']);

const TRAILING_FORMAT = /\bFORMAT\s+([A-Za-z0-9_]+)\s*;?\s*$/i;

interface Statement {
  sql: string;
  database: string;
  params: Record<string, unknown>;
  settings: [string, string][];
  data: Buffer | null;
  format: string;
}

class StatementError extends Error {
  constructor(
    readonly code: number,
    /** ClickHouse's name of the code, as the answer states it in parentheses. */
    readonly codeName: string,
    message: string,
  ) {
    super(message);
  }
}

function settingLiteral(value: string): string {
  return /^-?\d+(?:\.\d+)?$/.test(value) ? value : `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
}

function statementOf(url: URL, body: Buffer): Statement {
  const query = url.searchParams.get('query');
  const sql = query ?? body.toString('utf8');
  const data = query !== null && body.length > 0 ? body : null;
  if (sql.trim() === '') throw new StatementError(62, 'SYNTAX_ERROR', 'Empty query.');
  const types = declaredParameterTypes(sql);
  const params: Record<string, unknown> = {};
  const settings: [string, string][] = [];
  for (const [name, value] of url.searchParams) {
    if (name.startsWith('param_')) {
      const param = name.slice('param_'.length);
      try {
        params[param] = parameterValue(value, types.get(param));
      } catch (error) {
        throw new StatementError(26, 'CANNOT_PARSE_QUOTED_STRING', `Cannot parse the value of query parameter ${param}: ${(error as Error).message}`);
      }
    } else if (!NOT_SETTINGS.has(name) && !IGNORED_SETTINGS.has(name)) {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new StatementError(115, 'UNKNOWN_SETTING', `Unknown setting '${name}'.`);
      settings.push([name, value]);
    }
  }
  const database = url.searchParams.get('database') ?? 'default';
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(database)) throw new StatementError(81, 'UNKNOWN_DATABASE', `Database ${database} does not exist.`);
  return {
    sql,
    database,
    params,
    settings,
    data,
    format: TRAILING_FORMAT.exec(sql)?.[1] ?? url.searchParams.get('default_format') ?? 'TabSeparated',
  };
}

/** The ClickHouse code and name of a chDB failure, as its message states them. */
function failureOf(error: unknown): StatementError {
  if (error instanceof StatementError) return error;
  const message = error instanceof Error ? error.message : String(error);
  const code = /Code: (\d+)\./.exec(message);
  const name = /\(([A-Z0-9_]{3,})\)(?:\s*\(version [^)]*\))?\s*$/.exec(message.trim());
  return new StatementError(code ? Number(code[1]) : 1001, name?.[1] ?? 'STD_EXCEPTION', message.replace(/^Code: \d+\. DB::Exception: /, ''));
}

class ChdbRunner {
  private readonly session: Session;
  private tail: Promise<unknown> = Promise.resolve();
  private staged = 0;

  constructor(private readonly directory: string) {
    fs.mkdirSync(directory, { recursive: true });
    fs.mkdirSync(this.stagingDirectory(), { recursive: true });
    // A server's defaults where chDB's differ: 64-bit integers are strings in JSON output.
    this.session = new Session(directory, { connectionArgs: ['--output_format_json_quote_64bit_integers=1'] });
  }

  private stagingDirectory(): string {
    return path.join(this.directory, 'http-inserts');
  }

  /** Runs the statement after every statement before it. */
  run(statement: Statement): Promise<string> {
    const result = this.tail.then(() => this.execute(statement));
    this.tail = result.catch(() => undefined);
    return result;
  }

  private async query(sql: string, params: Record<string, unknown> = {}, format = 'TabSeparated'): Promise<string> {
    try {
      return (await this.session.queryBindAsync(sql, params, { format })).text();
    } catch (error) {
      // chDB hands what a failed query had written to the next query; a throwaway query takes it.
      await this.session.queryBindAsync('SELECT 1', {}, { format: 'TabSeparated' }).catch(() => undefined);
      throw error;
    }
  }

  private async execute(statement: Statement): Promise<string> {
    await this.query(`USE ${quotedIdentifier(statement.database)}`);
    const applied: string[] = [];
    try {
      for (const [name, value] of statement.settings) {
        await this.query(`SET ${name} = ${settingLiteral(value)}`);
        applied.push(name);
      }
      if (statement.data === null) return await this.query(statement.sql, statement.params, statement.format);
      return await this.insertData(statement, statement.data);
    } finally {
      for (const name of applied) await this.query(`SET ${name} = DEFAULT`).catch(() => undefined);
    }
  }

  /** `INSERT … FORMAT X` with the rows in the request body: the insert reads them from a file. */
  private async insertData(statement: Statement, data: Buffer): Promise<string> {
    const format = TRAILING_FORMAT.exec(statement.sql);
    if (!/^\s*INSERT\b/i.test(statement.sql) || !format) {
      throw new StatementError(62, 'SYNTAX_ERROR', 'Data in the request body needs an INSERT statement ending with FORMAT.');
    }
    const file = path.join(this.stagingDirectory(), `${++this.staged}.data`);
    await fs.promises.writeFile(file, data);
    try {
      const head = statement.sql.slice(0, format.index);
      // The file name is the fixture's own (a number in its directory), so it is written as a literal.
      return await this.query(`${head} FROM INFILE '${file}' FORMAT ${format[1]}`, statement.params);
    } finally {
      await fs.promises.rm(file, { force: true });
    }
  }

  async close(): Promise<void> {
    await this.tail;
    this.session.close();
  }
}

async function bodyOf(request: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  const encoding = request.headers['content-encoding'];
  if (encoding === 'gzip') return zlib.gunzipSync(body);
  if (encoding === 'deflate') return zlib.inflateSync(body);
  return body;
}

export async function startChdbHttpServer(options: ChdbHttpServerOptions): Promise<ChdbHttpServer> {
  const runner = new ChdbRunner(options.path);
  // ClickHouse takes URIs up to 1 MiB (http_max_uri_size), where query parameters travel.
  const server = http.createServer({ maxHeaderSize: 1 << 20 }, async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    try {
      const body = await bodyOf(request);
      if ((url.pathname === '/ping' || url.pathname === '/') && !url.searchParams.has('query') && body.length === 0) {
        response.writeHead(200, { 'Content-Type': 'text/plain; charset=UTF-8' }).end('Ok.\n');
        return;
      }
      const statement = statementOf(url, body);
      const output = await runner.run(statement);
      response
        .writeHead(200, {
          'Content-Type': 'text/plain; charset=UTF-8',
          'X-ClickHouse-Format': statement.format,
          'X-ClickHouse-Summary': JSON.stringify({ read_rows: '0', read_bytes: '0', written_rows: '0', written_bytes: '0', total_rows_to_read: '0' }),
        })
        .end(output);
    } catch (error) {
      const failure = failureOf(error);
      response
        .writeHead(500, { 'Content-Type': 'text/plain; charset=UTF-8', 'X-ClickHouse-Exception-Code': String(failure.code) })
        .end(`Code: ${failure.code}. DB::Exception: ${failure.message} (${failure.codeName})\n`);
    }
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve));
  const { address, port } = server.address() as AddressInfo;
  return {
    url: `http://${address}:${port}`,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      await runner.close();
    },
  };
}
