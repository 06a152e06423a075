import fs from 'node:fs';
import path from 'node:path';
// Before `chdb`: it sets how chDB's allocator works, which libchdb reads when it loads.
import './chdb-allocator.js';
import { Session } from 'chdb';
import { WAREHOUSE_INSERT_SETTINGS, WAREHOUSE_QUERY_SETTINGS } from './query-settings.js';
import { RowBinaryWriter, structureOf, writeValue, type WarehouseColumn } from './row-binary.js';
import { WarehouseLayout } from './warehouse-layout.js';
import { columnList, keysOfRows, quotedIdentifier, storedKeysSelect } from './warehouse-sql.js';
import { typedRows, type JsonCompactAnswer, type QueryParams, type TypedRows, type Warehouse } from './warehouse.js';

/** Where RowBinary inserts wait for chDB to read them, under the warehouse directory. */
const STAGING_DIRECTORY = 'tally-inserts';

/** The database chDB keeps Tally's tables in. */
const WAREHOUSE_DATABASE = 'default';

const CONNECTION_ARGS = [
  ...Object.entries({ ...WAREHOUSE_QUERY_SETTINGS, ...WAREHOUSE_INSERT_SETTINGS }).map(([name, value]) => `--${name}=${value}`),
  // BACKUP and RESTORE write and read only under this path; a backup goes where the operator
  // says (`tally backup DIR`). No statement from a request reaches chDB unparsed: HogQL and the
  // insights print their own SQL, which never holds BACKUP or RESTORE.
  '--backups.allowed_path=/',
];

/** ClickHouse in-process through chDB, persisted under the data directory. */
export class ChdbWarehouse implements Warehouse {
  readonly kind = 'chdb' as const;
  readonly layout = WarehouseLayout.SINGLE_NODE;
  private readonly session: Session;
  private readonly staging: string;
  private staged = 0;
  /** The last statement started: each waits for the one before (see `run`). */
  private tail: Promise<unknown> = Promise.resolve();

  constructor(directory: string) {
    fs.mkdirSync(directory, { recursive: true });
    // Files left by a crash were never acknowledged rows: the capture log still holds them.
    this.staging = path.join(directory, STAGING_DIRECTORY);
    fs.rmSync(this.staging, { recursive: true, force: true });
    fs.mkdirSync(this.staging);
    this.session = new Session(directory, { connectionArgs: CONNECTION_ARGS });
  }

  /**
   * Writes a backup of the warehouse's database into `directory` (which must not exist yet) with
   * ClickHouse's `BACKUP`: each table as it stands when the backup reaches it, so the caller keeps
   * the tables from changing meanwhile when they must agree. Other statements of this warehouse
   * wait for it.
   */
  async backupTo(directory: string): Promise<void> {
    await this.command(`BACKUP DATABASE ${WAREHOUSE_DATABASE} TO File({directory:String})`, { directory });
  }

  /**
   * Fills this warehouse, empty, from a backup written by `backupTo`: the tables come back with
   * their parts as they were, rows not merged yet included.
   */
  async restoreFrom(directory: string): Promise<void> {
    await this.command(`RESTORE DATABASE ${WAREHOUSE_DATABASE} FROM File({directory:String})`, { directory });
  }

  async query<T>(sql: string, params: QueryParams = {}): Promise<T[]> {
    const text = await this.run(sql, params, 'JSONEachRow');
    if (text.length === 0) return [];
    return text
      .split('\n')
      .filter((line) => line.length > 0)
      .map((line) => JSON.parse(line) as T);
  }

  async queryColumns(sql: string, params: QueryParams = {}): Promise<TypedRows> {
    return typedRows(JSON.parse(await this.run(sql, params, 'JSONCompact')) as JsonCompactAnswer);
  }

  async command(sql: string, params: QueryParams = {}): Promise<void> {
    await this.run(sql, params, 'TabSeparated');
  }

  /**
   * Runs one statement after the ones before it. chDB keeps the output a failed query had
   * written so far and hands it to the next query of the session as the start of that query's
   * output, so after a failure a throwaway query takes it before any other statement runs.
   */
  private run(sql: string, params: QueryParams, format: string): Promise<string> {
    const result = this.tail.then(async () => {
      try {
        return (await this.session.queryBindAsync(sql, params, { format })).text();
      } catch (error) {
        await this.session.queryBindAsync('SELECT 1', {}, { format: 'TabSeparated' }).catch(() => undefined);
        throw error;
      }
    });
    this.tail = result.catch(() => undefined);
    return result;
  }

  async insert(table: string, rows: readonly object[]): Promise<void> {
    await this.insertJsonEachRow(table, rows.map((row) => JSON.stringify(row)).join('\n'));
  }

  async insertJsonEachRow(table: string, lines: string | Uint8Array): Promise<void> {
    if (lines.length === 0) return;
    await this.session.insert({ table, values: typeof lines === 'string' ? Buffer.from(lines) : lines, format: 'JSONEachRow' });
  }

  /**
   * chDB's insert takes text formats only, so the rows go through a file that the insert reads
   * with `file()`; the file only carries them across and is never synced.
   */
  async insertRowBinary(table: string, columns: readonly WarehouseColumn[], rows: readonly Uint8Array[]): Promise<void> {
    if (rows.every((piece) => piece.length === 0)) return;
    await this.withStaged(rows, (file) =>
      this.command(`INSERT INTO ${quotedIdentifier(table)} (${columnList(columns)}) SELECT * FROM file({file:String}, 'RowBinary', {structure:String})`, {
        file,
        structure: structureOf(columns),
      }),
    );
  }

  /**
   * The keys go through a staged file too: bound as array parameters, chDB took about 100 ms of
   * CPU for 20,000 UUIDs, read from a file 20–40 ms (measured).
   */
  async storedKeys(table: string, columns: readonly WarehouseColumn[], keys: readonly (readonly unknown[])[]): Promise<string[][]> {
    if (keys.length === 0) return [];
    const writer = new RowBinaryWriter();
    for (const key of keys) {
      for (const [index, column] of columns.entries()) writeValue(writer, column, key[index]);
    }
    const found = await this.withStaged([writer.bytes()], (file) =>
      this.query<Record<string, string>>(
        storedKeysSelect(table, columns, `(${columnList(columns)}) IN (SELECT * FROM file({file:String}, 'RowBinary', {structure:String}))`),
        { file, structure: structureOf(columns) },
      ),
    );
    return keysOfRows(found, columns);
  }

  /** Runs `use` with `rows` (pieces that follow one another) in a file of their own, removed afterwards. */
  private async withStaged<T>(rows: readonly Uint8Array[], use: (file: string) => Promise<T>): Promise<T> {
    const file = path.join(this.staging, `${++this.staged}.rowbinary`);
    await fs.promises.writeFile(file, rows);
    try {
      return await use(file);
    } finally {
      await fs.promises.rm(file, { force: true });
    }
  }

  async close(): Promise<void> {
    this.session.close();
  }
}
