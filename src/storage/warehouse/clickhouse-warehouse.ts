import { Readable } from 'node:stream';
import { createClient, type ClickHouseClient, type ClickHouseSettings } from '@clickhouse/client';
import { WAREHOUSE_QUERY_SETTINGS } from './query-settings.js';
import type { QueryParams, Warehouse } from './warehouse.js';

/** A ClickHouse server over HTTP (CLICKHOUSE_URL). */
export class ClickhouseWarehouse implements Warehouse {
  readonly kind = 'clickhouse' as const;
  private readonly client: ClickHouseClient;
  /** The query settings this server knows (older servers have no join reordering to turn off). */
  private querySettings: Promise<ClickHouseSettings> | null = null;

  constructor(url: string, database: string) {
    this.client = createClient({
      url,
      database,
      clickhouse_settings: {
        // Async inserts batch small writes server-side; waiting for them keeps acknowledgements honest.
        async_insert: 1,
        wait_for_async_insert: 1,
      },
    });
  }

  async query<T>(sql: string, params: QueryParams = {}): Promise<T[]> {
    const clickhouse_settings = await this.knownQuerySettings();
    const result = await this.client.query({ query: sql, query_params: params, format: 'JSONEachRow', clickhouse_settings });
    return result.json<T>();
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

  async insertJsonEachRow(table: string, lines: string | Uint8Array): Promise<void> {
    if (lines.length === 0) return;
    await this.client.insert({
      table,
      values: Readable.from([lines]),
      format: 'JSONEachRow',
      // An object given for a String column is stored as its text (chDB's default; older servers' too).
      clickhouse_settings: { input_format_json_read_objects_as_strings: 1 },
    });
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
