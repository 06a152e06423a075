import { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { createClient, type ClickHouseClient, type ClickHouseSettings } from '@clickhouse/client';
import { WAREHOUSE_INSERT_SETTINGS, WAREHOUSE_QUERY_SETTINGS } from './query-settings.js';
import type { WarehouseColumn } from './row-binary.js';
import { WarehouseLayout } from './warehouse-layout.js';
import { columnList, keysOfRows, quotedIdentifier, storedKeysSelect } from './warehouse-sql.js';
import { typedRows, type QueryParams, type TypedRows, type Warehouse } from './warehouse.js';

/** Keys per stored-key request: about 225 KB of URL for UUID keys. */
export const STORED_KEYS_PER_REQUEST = 5000;

/** A ClickHouse server over HTTP (CLICKHOUSE_URL), alone or a node of `cluster` (TALLY_CLICKHOUSE_CLUSTER). */
export class ClickhouseWarehouse implements Warehouse {
  readonly kind = 'clickhouse' as const;
  readonly layout: WarehouseLayout;
  private readonly client: ClickHouseClient;
  /** The query settings this server knows (older servers have no join reordering to turn off). */
  private querySettings: Promise<ClickHouseSettings> | null = null;

  constructor(url: string, database: string, cluster: string | null = null) {
    this.layout = cluster === null ? WarehouseLayout.SINGLE_NODE : WarehouseLayout.cluster(cluster, database);
    this.client = createClient({
      url,
      database,
      clickhouse_settings: {
        // Async inserts batch small writes server-side; waiting for them keeps acknowledgements honest.
        async_insert: 1,
        wait_for_async_insert: 1,
        ...WAREHOUSE_INSERT_SETTINGS,
        // Sent with every request, so the INSERT … SELECT commands get them too.
        ...this.layout.insertSettings,
        ...this.layout.querySettings,
      },
    });
  }

  async query<T>(sql: string, params: QueryParams = {}): Promise<T[]> {
    const clickhouse_settings = await this.knownQuerySettings();
    const result = await this.client.query({ query: sql, query_params: params, format: 'JSONEachRow', clickhouse_settings });
    return result.json<T>();
  }

  async queryColumns(sql: string, params: QueryParams = {}): Promise<TypedRows> {
    const clickhouse_settings = await this.knownQuerySettings();
    const result = await this.client.query({ query: sql, query_params: params, format: 'JSONCompact', clickhouse_settings });
    return typedRows(await result.json<unknown[]>());
  }

  private knownQuerySettings(): Promise<ClickHouseSettings> {
    this.querySettings ??= this.client
      .query({
        query: 'SELECT name FROM system.settings WHERE name IN {names:Array(String)}',
        query_params: { names: Object.keys(WAREHOUSE_QUERY_SETTINGS) },
        format: 'JSONEachRow',
      })
      .then((result) => result.json<{ name: string }>())
      .then((rows) => Object.fromEntries(rows.map(({ name }) => [name, WAREHOUSE_QUERY_SETTINGS[name]])) as ClickHouseSettings)
      .catch((error: unknown) => {
        this.querySettings = null;
        throw error;
      });
    return this.querySettings;
  }

  async command(sql: string, params: QueryParams = {}): Promise<void> {
    await this.client.command({ query: sql, query_params: params });
  }

  async insert(table: string, rows: readonly object[]): Promise<void> {
    if (rows.length === 0) return;
    await this.client.insert({ table, values: rows as object[], format: 'JSONEachRow' });
  }

  /**
   * Sends the lines as the request body of an `INSERT … FORMAT JSONEachRow`, byte for byte. The
   * client's own `insert` serialises every value of a stream with JSON.stringify, which would
   * turn ready-made lines into one quoted string.
   */
  async insertJsonEachRow(table: string, lines: string | Uint8Array): Promise<void> {
    if (lines.length === 0) return;
    // Servers before identifier parameters in INSERT refuse `{table:Identifier}`, so Tally's own
    // table name is checked and quoted instead.
    await this.sendInsert(`INSERT INTO ${quotedIdentifier(table)} FORMAT JSONEachRow`, [typeof lines === 'string' ? Buffer.from(lines) : lines], {
      // An object given for a String column is stored as its text (chDB's default; older servers' too).
      input_format_json_read_objects_as_strings: 1,
    });
  }

  async insertRowBinary(table: string, columns: readonly WarehouseColumn[], rows: readonly Uint8Array[]): Promise<void> {
    if (rows.every((piece) => piece.length === 0)) return;
    await this.sendInsert(`INSERT INTO ${quotedIdentifier(table)} (${columnList(columns)}) FORMAT RowBinary`, rows, {});
  }

  /**
   * Filters on each column's values as an array parameter; the server binds them natively.
   * Parameters travel in the URL, which ClickHouse takes up to 1 MiB (`http_max_uri_size`), so
   * the keys are asked for in groups of STORED_KEYS_PER_REQUEST (a UUID key is about 45 bytes there).
   */
  async storedKeys(table: string, columns: readonly WarehouseColumn[], keys: readonly (readonly unknown[])[]): Promise<string[][]> {
    const found: string[][] = [];
    for (let start = 0; start < keys.length; start += STORED_KEYS_PER_REQUEST) {
      const group = keys.slice(start, start + STORED_KEYS_PER_REQUEST);
      const params = Object.fromEntries(columns.map((_, index) => [`values_${index}`, [...new Set(group.map((key) => key[index]))]]));
      const condition = columns.map(({ name, type }, index) => `${quotedIdentifier(name)} IN {values_${index}:Array(${type})}`).join(' AND ');
      found.push(...keysOfRows(await this.query<Record<string, string>>(storedKeysSelect(table, columns, condition), params), columns));
    }
    return found;
  }

  /** Sends the pieces of `body`, one after another, as the data of the INSERT, byte for byte. */
  private async sendInsert(query: string, body: readonly Uint8Array[], settings: ClickHouseSettings): Promise<void> {
    const result = await this.client.exec({
      query,
      values: Readable.from(body, { objectMode: false }),
      clickhouse_settings: settings,
    });
    // The answer to an insert is empty; reading it to the end frees the connection.
    await finished(result.stream.resume());
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
