import path from 'node:path';
import { ChdbWarehouse } from './chdb-warehouse.js';
import { ClickhouseWarehouse } from './clickhouse-warehouse.js';
import { migrateWarehouse } from './migrations.js';
import type { Warehouse } from './warehouse.js';

export interface WarehouseOptions {
  clickhouseUrl: string | null;
  clickhouseDatabase: string;
  dataDir: string;
}

export const WAREHOUSE_DIRECTORY = 'warehouse';

/** Opens chDB under the data directory, or the ClickHouse server of CLICKHOUSE_URL, and migrates it. */
export async function openWarehouse(options: WarehouseOptions): Promise<Warehouse> {
  const warehouse = options.clickhouseUrl
    ? new ClickhouseWarehouse(options.clickhouseUrl, options.clickhouseDatabase)
    : new ChdbWarehouse(path.join(options.dataDir, WAREHOUSE_DIRECTORY));
  try {
    await migrateWarehouse(warehouse);
  } catch (error) {
    await warehouse.close();
    throw error;
  }
  return warehouse;
}
