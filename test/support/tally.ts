import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * With TEST_E2E_POSTGRES_URL (an admin URL of a PostgreSQL server), every test server gets a
 * throw-away PostgreSQL catalog instead of SQLite, so the whole end-to-end suite can run on it.
 */
const E2E_POSTGRES_ADMIN_URL = process.env.TEST_E2E_POSTGRES_URL ?? null;

function runPg(adminUrl: string, statement: string): void {
  const script = `const pg = require('pg'); const c = new pg.Client({ connectionString: process.argv[1] });
    c.connect().then(() => c.query(process.argv[2])).then(() => c.end()).catch((e) => { console.error(e); process.exit(1); });`;
  const result = spawnSync(process.execPath, ['-e', script, adminUrl, statement], { encoding: 'utf8', cwd: ROOT });
  if (result.status !== 0) throw new Error(`PostgreSQL statement failed: ${statement}\n${result.stderr}`);
}

function createDatabaseSync(adminUrl: string): string {
  const name = `tally_e2e_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  runPg(adminUrl, `CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

function dropDatabaseSync(adminUrl: string, databaseUrl: string): void {
  runPg(adminUrl, `DROP DATABASE IF EXISTS ${new URL(databaseUrl).pathname.slice(1)} WITH (FORCE)`);
}

/**
 * With TEST_E2E_CLICKHOUSE_URL (a ClickHouse server, such as the chDB test server), every test
 * server gets a throw-away database there instead of chDB, so the whole end-to-end suite runs the
 * ClickHouse-server warehouse.
 */
const E2E_CLICKHOUSE_URL = process.env.TEST_E2E_CLICKHOUSE_URL ?? null;

function runClickhouse(url: string, statement: string): void {
  const script = `fetch(process.argv[1], { method: 'POST', body: process.argv[2] })
    .then(async (r) => { if (!r.ok) { console.error(await r.text()); process.exit(1); } })
    .catch((e) => { console.error(e); process.exit(1); });`;
  const result = spawnSync(process.execPath, ['-e', script, url, statement], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`ClickHouse statement failed: ${statement}\n${result.stderr}`);
}

function createClickhouseDatabaseSync(url: string): string {
  const name = `tally_e2e_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  runClickhouse(url, `CREATE DATABASE ${name}`);
  return name;
}

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const CLI = path.join(ROOT, 'dist/src/cli.js');

/** How the `tally` binary starts Node: its shebang's environment assignments and Node flags, which `npm start` repeats. */
export function cliLaunch(): { env: Record<string, string>; flags: string[] } {
  const shebang = fs.readFileSync(CLI, 'utf8').split('\n', 1)[0]!;
  const match = /^#!\/usr\/bin\/env -S((?: [A-Z_]+=\S+)*) node((?: --\S+)*)$/.exec(shebang);
  if (!match) throw new Error(`unexpected shebang in ${CLI}: ${shebang}`);
  const words = (text: string) => text.trim().split(' ').filter(Boolean);
  const env = Object.fromEntries(
    words(match[1]!).map((assignment) => [assignment.slice(0, assignment.indexOf('=')), assignment.slice(assignment.indexOf('=') + 1)]),
  );
  return { env, flags: words(match[2]!) };
}

export function tempDataDir(prefix = 'tally-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  body?: unknown;
  rawBody?: string | Uint8Array;
  key?: string | null;
  headers?: Record<string, string>;
}

/** A real `tally serve` child process on a temporary data directory and a free port. */
export class TallyServer {
  url = '';
  projectToken = '';
  personalApiKey = '';
  /** Where the server serves its Prometheus metrics, when TALLY_METRICS_PORT is set. */
  metricsUrl = '';
  stdout = '';
  private child: ChildProcess | null = null;
  private exited: Promise<number | null> = Promise.resolve(null);

  constructor(
    readonly dataDir: string = tempDataDir(),
    readonly env: Record<string, string> = {},
  ) {
    if (E2E_POSTGRES_ADMIN_URL && this.env.DATABASE_URL === undefined) {
      this.env.DATABASE_URL = createDatabaseSync(E2E_POSTGRES_ADMIN_URL);
    }
    if (E2E_CLICKHOUSE_URL && this.env.CLICKHOUSE_URL === undefined) {
      this.env.CLICKHOUSE_URL = E2E_CLICKHOUSE_URL;
      this.env.CLICKHOUSE_DATABASE = createClickhouseDatabaseSync(E2E_CLICKHOUSE_URL);
    }
  }

  /** The server process id, for memory readings. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  static async start(env: Record<string, string> = {}, dataDir?: string): Promise<TallyServer> {
    const server = new TallyServer(dataDir ?? tempDataDir(), env);
    await server.start();
    return server;
  }

  async start(): Promise<void> {
    this.stdout = '';
    // With the binary's flags (see the README on why): tested and measured the way users run it.
    const launch = cliLaunch();
    const child = spawn(process.execPath, [...launch.flags, CLI, 'serve'], {
      env: { ...process.env, ...launch.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', TALLY_DATA_DIR: this.dataDir, ...this.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    let stderr = '';
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    this.exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
    this.url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`server did not start:\n${this.stdout}\n${stderr}`)), 60_000);
      child.stdout!.on('data', (chunk) => {
        this.stdout += chunk;
        const match = /Tally is listening on (http:\/\/\S+)/.exec(this.stdout);
        if (match?.[1]) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      });
      void this.exited.then((code) => {
        clearTimeout(timer);
        reject(new Error(`server exited with ${code}:\n${this.stdout}\n${stderr}`));
      });
    });
    this.projectToken = /Project token:\s+(\S+)/.exec(this.stdout)?.[1] ?? this.projectToken;
    this.personalApiKey = /Personal API key:\s+(\S+)/.exec(this.stdout)?.[1] ?? this.personalApiKey;
    this.metricsUrl = /Prometheus metrics at (\S+)/.exec(this.stdout)?.[1] ?? '';
  }

  /** Graceful stop (SIGTERM), waiting for the process to exit. */
  async stop(): Promise<void> {
    if (!this.child || this.child.exitCode !== null) return;
    this.child.kill('SIGTERM');
    await this.exited;
  }

  /** Hard crash, as `kill -9` would. */
  async kill(): Promise<void> {
    if (!this.child || this.child.exitCode !== null) return;
    this.child.kill('SIGKILL');
    await this.exited;
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  async request<T = any>(method: string, pathname: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    const key = options.key === undefined ? this.personalApiKey : options.key;
    if (key !== null) headers.authorization = `Bearer ${key}`;
    let body: string | Uint8Array | undefined;
    if (options.rawBody !== undefined) body = options.rawBody;
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(this.url + pathname, { method, headers, body: body as RequestInit['body'] });
    const text = await response.text();
    let parsed: unknown = text;
    if ((response.headers.get('content-type') ?? '').includes('json') && text !== '') parsed = JSON.parse(text);
    return { status: response.status, headers: response.headers, body: parsed as T, text };
  }

  /**
   * Announces a body of `contentLength` bytes and reads the answer without sending it: how an
   * oversized upload meets the server's limit, without the client racing the server's close.
   */
  announceBody(method: string, pathname: string, contentLength: number, headers: Record<string, string> = {}) {
    return new Promise<ApiResponse>((resolve, reject) => {
      const request = http.request(this.url + pathname, {
        method,
        headers: { ...headers, 'content-length': String(contentLength), authorization: `Bearer ${this.personalApiKey}` },
      });
      request.on('response', (response) => {
        let text = '';
        response.on('data', (chunk) => (text += chunk));
        response.on('end', () => {
          const body = (response.headers['content-type'] ?? '').includes('json') && text ? JSON.parse(text) : text;
          resolve({ status: response.statusCode ?? 0, headers: new Headers(), body, text });
          request.destroy();
        });
      });
      request.on('error', reject);
      request.flushHeaders();
    });
  }

  /** The body of a request that must answer `status`. */
  async bodyOf<T = any>(method: string, pathname: string, status = 200, options: RequestOptions = {}): Promise<T> {
    const response = await this.request<T>(method, pathname, options);
    assert.equal(response.status, status, `${method} ${pathname}: ${response.text}`);
    return response.body;
  }

  get<T = any>(pathname: string, options?: RequestOptions) {
    return this.request<T>('GET', pathname, options);
  }
  post<T = any>(pathname: string, body?: unknown, options?: RequestOptions) {
    return this.request<T>('POST', pathname, { ...options, body });
  }
  patch<T = any>(pathname: string, body?: unknown, options?: RequestOptions) {
    return this.request<T>('PATCH', pathname, { ...options, body });
  }
  delete<T = any>(pathname: string, options?: RequestOptions) {
    return this.request<T>('DELETE', pathname, options);
  }

  cli(args: string[], env: Record<string, string> = {}) {
    return runCli(args, { TALLY_DATA_DIR: this.dataDir, ...this.env, ...env });
  }

  /** A project made with `tally projects create` (before or after start). */
  createProject(name: string, timezone?: string): { id: number; api_token: string } {
    const args = ['projects', 'create', '--name', name, ...(timezone ? ['--timezone', timezone] : [])];
    return JSON.parse(this.cli(args).lastLine) as { id: number; api_token: string };
  }

  /** A personal API key made with `tally keys create`, with these scopes (and only these projects). */
  createKey(scopes: string, projectIds: number[] = []): string {
    const projects = projectIds.length > 0 ? ['--projects', projectIds.join(',')] : [];
    return this.cli(['keys', 'create', '--scopes', scopes, ...projects]).lastLine;
  }

  async dispose(): Promise<void> {
    await this.stop();
    fs.rmSync(this.dataDir, { recursive: true, force: true });
    if (E2E_POSTGRES_ADMIN_URL && this.env.DATABASE_URL) dropDatabaseSync(E2E_POSTGRES_ADMIN_URL, this.env.DATABASE_URL);
    if (E2E_CLICKHOUSE_URL && this.env.CLICKHOUSE_DATABASE) runClickhouse(E2E_CLICKHOUSE_URL, `DROP DATABASE IF EXISTS ${this.env.CLICKHOUSE_DATABASE}`);
  }
}

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
  lastLine: string;
}

export function runCli(args: string[], env: Record<string, string>): CliResult {
  const result = spawnSync(process.execPath, [CLI, ...args], {
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  const lines = result.stdout.trim().split('\n');
  return { status: result.status, stdout: result.stdout, stderr: result.stderr, lastLine: lines[lines.length - 1] ?? '' };
}

export const ERRORS = {
  notAuthenticated: {
    type: 'authentication_error',
    code: 'not_authenticated',
    detail: 'Authentication credentials were not provided.',
    attr: null,
  },
  notFound: { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null },
  missingScope: (scope: string) => ({
    type: 'authentication_error',
    code: 'permission_denied',
    detail: `API key missing required scope '${scope}'`,
    attr: null,
  }),
  permissionDenied: (detail: string) => ({ type: 'authentication_error', code: 'permission_denied', detail, attr: null }),
};
