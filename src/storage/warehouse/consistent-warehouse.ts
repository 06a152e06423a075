import type { WarehouseColumn } from './row-binary.js';
import type { QueryParams, TypedRows, Warehouse } from './warehouse.js';

/** What must be done before a read: everything acknowledged is in the warehouse once it resolves. */
export interface PendingWrites {
  flush(): Promise<void>;
}

/**
 * The warehouse as every reader sees it: each query and command first waits for the pending
 * writes (the ingestion consumer), so it reflects every acknowledged write.
 */
export class ConsistentWarehouse implements Warehouse {
  constructor(
    private readonly stored: Warehouse,
    private readonly pending: PendingWrites,
  ) {}

  get kind() {
    return this.stored.kind;
  }

  get layout() {
    return this.stored.layout;
  }

  async query<T>(sql: string, params?: QueryParams): Promise<T[]> {
    await this.pending.flush();
    return this.stored.query<T>(sql, params);
  }

  async queryColumns(sql: string, params?: QueryParams): Promise<TypedRows> {
    await this.pending.flush();
    return this.stored.queryColumns(sql, params);
  }

  async command(sql: string, params?: QueryParams): Promise<void> {
    await this.pending.flush();
    return this.stored.command(sql, params);
  }

  insert(table: string, rows: readonly object[]): Promise<void> {
    return this.stored.insert(table, rows);
  }

  insertJsonEachRow(table: string, lines: string | Uint8Array): Promise<void> {
    return this.stored.insertJsonEachRow(table, lines);
  }

  insertRowBinary(table: string, columns: readonly WarehouseColumn[], rows: readonly Uint8Array[]): Promise<void> {
    return this.stored.insertRowBinary(table, columns, rows);
  }

  async storedKeys(table: string, columns: readonly WarehouseColumn[], keys: readonly (readonly unknown[])[]): Promise<string[][]> {
    await this.pending.flush();
    return this.stored.storedKeys(table, columns, keys);
  }

  close(): Promise<void> {
    return this.stored.close();
  }
}
