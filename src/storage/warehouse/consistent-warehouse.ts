import type { QueryParams, Warehouse } from './warehouse.js';
import type { WarehouseSync } from './warehouse-sync.js';

/**
 * The warehouse as every reader sees it: each query and command first waits for the sync, so
 * it reflects every write the catalog has committed (read-your-writes across the two stores).
 */
export class ConsistentWarehouse implements Warehouse {
  constructor(
    private readonly stored: Warehouse,
    private readonly sync: WarehouseSync,
  ) {}

  get kind() {
    return this.stored.kind;
  }

  async query<T>(sql: string, params?: QueryParams): Promise<T[]> {
    await this.sync.flush();
    return this.stored.query<T>(sql, params);
  }

  async command(sql: string, params?: QueryParams): Promise<void> {
    await this.sync.flush();
    return this.stored.command(sql, params);
  }

  insert(table: string, rows: readonly object[]): Promise<void> {
    return this.stored.insert(table, rows);
  }

  insertJsonEachRow(table: string, text: string): Promise<void> {
    return this.stored.insertJsonEachRow(table, text);
  }

  close(): Promise<void> {
    return this.stored.close();
  }
}
