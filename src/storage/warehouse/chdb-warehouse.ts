import fs from 'node:fs';
import { Session } from 'chdb';
import { WAREHOUSE_QUERY_SETTINGS } from './query-settings.js';
import type { QueryParams, Warehouse } from './warehouse.js';

/** ClickHouse in-process through chDB, persisted under the data directory. */
export class ChdbWarehouse implements Warehouse {
  readonly kind = 'chdb' as const;
  private readonly session: Session;

  constructor(directory: string) {
    fs.mkdirSync(directory, { recursive: true });
    const connectionArgs = Object.entries(WAREHOUSE_QUERY_SETTINGS).map(([name, value]) => `--${name}=${value}`);
    this.session = new Session(directory, { connectionArgs });
  }

  async query<T>(sql: string, params: QueryParams = {}): Promise<T[]> {
    const result = await this.session.queryBindAsync(sql, params, { format: 'JSONEachRow' });
    const text = result.text();
    if (text.length === 0) return [];
    return text
      .split('\n')
      .filter((line) => line.length > 0)
      .map((line) => JSON.parse(line) as T);
  }

  async command(sql: string, params: QueryParams = {}): Promise<void> {
    await this.session.queryBindAsync(sql, params, { format: 'TabSeparated' });
  }

  async insert(table: string, rows: readonly object[]): Promise<void> {
    await this.insertJsonEachRow(table, rows.map((row) => JSON.stringify(row)).join('\n'));
  }

  async insertJsonEachRow(table: string, lines: string | Uint8Array): Promise<void> {
    if (lines.length === 0) return;
    await this.session.insert({ table, values: typeof lines === 'string' ? Buffer.from(lines) : lines, format: 'JSONEachRow' });
  }

  async close(): Promise<void> {
    this.session.close();
  }
}
