import { Readable } from 'node:stream';
import { createClient, type ClickHouseClient } from '@clickhouse/client';
import type { QueryParams, Warehouse } from './warehouse.js';

/** A ClickHouse server over HTTP (CLICKHOUSE_URL). */
export class ClickhouseWarehouse implements Warehouse {
  readonly kind = 'clickhouse' as const;
  private readonly client: ClickHouseClient;

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
    const result = await this.client.query({ query: sql, query_params: params, format: 'JSONEachRow' });
    return result.json<T>();
  }

  async command(sql: string, params: QueryParams = {}): Promise<void> {
    await this.client.command({ query: sql, query_params: params });
  }

  async insert(table: string, rows: readonly object[]): Promise<void> {
    if (rows.length === 0) return;
    await this.client.insert({ table, values: rows as object[], format: 'JSONEachRow' });
  }

  async insertJsonEachRow(table: string, text: string): Promise<void> {
    if (text.length === 0) return;
    await this.client.insert({ table, values: Readable.from([text]), format: 'JSONEachRow' });
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
