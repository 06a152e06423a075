import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { QueryParams, TypedRows, Warehouse } from '../../src/storage/warehouse/warehouse.js';
import { WarehouseLayout } from '../../src/storage/warehouse/warehouse-layout.js';

/**
 * SQL snapshots: the SQL and bound parameters a piece of code sends to the warehouse, kept in
 * committed files so that a review shows how generated SQL changes. Node 20's test runner has no
 * snapshot assertion; this is a small one for SQL text.
 */

/** One statement the warehouse was asked to run: a read, or (for DDL snapshots) a command or insert. */
export interface RecordedQuery {
  method: 'query' | 'queryColumns' | 'command' | 'insert';
  sql: string;
  params: QueryParams;
}

/**
 * A warehouse that runs nothing: it records every `query` and `queryColumns` call and answers
 * the n-th of them with `answers[n]` (no rows when there is none), for code that reads an earlier
 * query's answer (breakdown values, totals) before it builds the next. Writes are refused: the
 * code under snapshot only reads.
 */
export class RecordingWarehouse implements Warehouse {
  readonly kind = 'clickhouse' as const;
  readonly layout = WarehouseLayout.SINGLE_NODE;
  readonly calls: RecordedQuery[] = [];

  constructor(private readonly answers: readonly (readonly object[])[] = []) {}

  private record(method: RecordedQuery['method'], sql: string, params: QueryParams | undefined): readonly object[] {
    this.calls.push({ method, sql, params: params ?? {} });
    return this.answers[this.calls.length - 1] ?? [];
  }

  async query<T = Record<string, unknown>>(sql: string, params?: QueryParams): Promise<T[]> {
    return this.record('query', sql, params).map((row) => ({ ...row }) as T);
  }

  async queryColumns(sql: string, params?: QueryParams): Promise<TypedRows> {
    const rows = this.record('queryColumns', sql, params);
    return { types: [], rows: rows.map((row) => Object.values(row)) };
  }

  async command(sql: string): Promise<void> {
    throw new Error(`RecordingWarehouse: unexpected command: ${sql.slice(0, 200)}`);
  }

  async insert(table: string): Promise<void> {
    throw new Error(`RecordingWarehouse: unexpected insert into ${table}`);
  }

  async insertJsonEachRow(table: string): Promise<void> {
    throw new Error(`RecordingWarehouse: unexpected insert into ${table}`);
  }

  async insertRowBinary(table: string): Promise<void> {
    throw new Error(`RecordingWarehouse: unexpected insert into ${table}`);
  }

  async storedKeys(table: string): Promise<string[][]> {
    throw new Error(`RecordingWarehouse: unexpected stored-keys lookup in ${table}`);
  }

  async close(): Promise<void> {}
}

/** `p_2` before `p_10`: runs of digits compare as numbers. */
function naturalCompare(a: string, b: string): number {
  const left = a.match(/\d+|\D+/g) ?? [];
  const right = b.match(/\d+|\D+/g) ?? [];
  for (let index = 0; index < Math.min(left.length, right.length); index++) {
    const x = left[index]!;
    const y = right[index]!;
    if (x === y) continue;
    if (/^\d/.test(x) && /^\d/.test(y) && Number(x) !== Number(y)) return Number(x) - Number(y);
    return x < y ? -1 : 1;
  }
  return left.length - right.length;
}

/** A value with the keys of every object in natural order, and what JSON cannot hold made text. */
function stableValue(value: unknown): unknown {
  if (typeof value === 'bigint') return `${value}n`;
  if (value === undefined) return '<undefined>';
  if (value === null || typeof value !== 'object') return value;
  const json = (value as { toJSON?: () => unknown }).toJSON;
  if (typeof json === 'function') return stableValue(json.call(value));
  if (Array.isArray(value)) return value.map(stableValue);
  const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => naturalCompare(a, b));
  return Object.fromEntries(entries.map(([key, item]) => [key, stableValue(item)]));
}

/** Pretty JSON with object keys in a stable (natural) order. */
export function stableJson(value: unknown): string {
  return JSON.stringify(stableValue(value), null, 2);
}

/**
 * The text of a snapshot: each query's SQL (trailing spaces of its lines trimmed), then its
 * parameters as pretty JSON in `--` comments, so the file stays readable SQL.
 */
export function formatQueries(header: string, calls: readonly RecordedQuery[]): string {
  const blocks = calls.map((call, index) => {
    const sql = call.sql
      .split('\n')
      .map((line) => line.trimEnd())
      .join('\n')
      .replace(/^\n+|\n+$/g, '');
    const params = stableJson(call.params)
      .split('\n')
      .map((line) => `-- ${line}`)
      .join('\n');
    return `-- query ${index + 1} of ${calls.length} (${call.method})\n${sql};\n-- params:\n${params}\n`;
  });
  const body = blocks.length > 0 ? blocks.join('\n') : '-- (no queries)\n';
  return `${header
    .split('\n')
    .map((line) => `-- ${line}`.trimEnd())
    .join('\n')}\n\n${body}`;
}

/**
 * The repository root: the nearest directory above `from` holding package.json and
 * tsconfig.json, so the compiled test (dist/test/…) finds the same root as its source.
 */
export function repositoryRoot(from: string = path.dirname(fileURLToPath(import.meta.url))): string {
  let dir = from;
  while (!(fs.existsSync(path.join(dir, 'package.json')) && fs.existsSync(path.join(dir, 'tsconfig.json')))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no repository root (package.json and tsconfig.json) above ${from}`);
    dir = parent;
  }
  return dir;
}

/** True when snapshots are (re)written instead of compared: UPDATE_SNAPSHOTS=1. */
export function updatingSnapshots(): boolean {
  return process.env.UPDATE_SNAPSHOTS === '1';
}

/** Where the first difference of two texts is, as a message a failing test can show. */
export function firstDifference(expected: string, actual: string): string {
  const want = expected.split('\n');
  const got = actual.split('\n');
  for (let index = 0; index < Math.max(want.length, got.length); index++) {
    if (want[index] === got[index]) continue;
    const shown = (line: string | undefined) => (line === undefined ? '<end of file>' : JSON.stringify(line));
    return `first difference at line ${index + 1}:\n  snapshot: ${shown(want[index])}\n  actual:   ${shown(got[index])}`;
  }
  return 'the texts are equal';
}

/**
 * A directory of `.sql` snapshot files (relative to the repository root, not to the compiled
 * test). `check` compares a text to its file, or writes the file with UPDATE_SNAPSHOTS=1;
 * nothing is written otherwise.
 */
export class SqlSnapshots {
  readonly dir: string;

  constructor(
    relativeDir: string,
    private readonly updateCommand: string,
  ) {
    this.dir = path.join(repositoryRoot(), relativeDir);
  }

  private file(name: string): string {
    return path.join(this.dir, `${name}.sql`);
  }

  private shown(name: string): string {
    return path.relative(repositoryRoot(), this.file(name)).split(path.sep).join('/');
  }

  check(name: string, actual: string): void {
    const file = this.file(name);
    const stored = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').replace(/\r\n/g, '\n') : null;
    if (updatingSnapshots()) {
      if (stored !== actual) {
        fs.mkdirSync(this.dir, { recursive: true });
        fs.writeFileSync(file, actual);
      }
      return;
    }
    if (stored === null) assert.fail(`SQL snapshot ${this.shown(name)} is missing; write it with ${this.updateCommand}`);
    if (stored !== actual) {
      assert.fail(
        `SQL snapshot ${this.shown(name)} differs from the SQL generated now, ${firstDifference(stored, actual)}\n` +
          `If the change is intended, rewrite the snapshots with ${this.updateCommand} and commit them.`,
      );
    }
  }

  /** Snapshot files of no current case: deleted with UPDATE_SNAPSHOTS=1, a failure otherwise. */
  checkNoneObsolete(names: readonly string[]): void {
    const wanted = new Set(names.map((name) => `${name}.sql`));
    const obsolete = fs.existsSync(this.dir) ? fs.readdirSync(this.dir).filter((entry) => entry.endsWith('.sql') && !wanted.has(entry)) : [];
    if (updatingSnapshots()) {
      for (const entry of obsolete) fs.rmSync(path.join(this.dir, entry));
      return;
    }
    assert.deepEqual(obsolete, [], `SQL snapshots of no current case (delete them, or run ${this.updateCommand}): ${obsolete.join(', ')}`);
  }
}
