import path from 'node:path';
import { ChdbWarehouse } from './chdb-warehouse.js';
import { ClickhouseWarehouse } from './clickhouse-warehouse.js';
import { migrateWarehouse } from './migrations.js';
import type { Warehouse } from './warehouse.js';

export interface WarehouseOptions {
  clickhouseUrl: string | null;
  clickhouseDatabase: string;
  clickhouseCluster: string | null;
  dataDir: string;
}

export const WAREHOUSE_DIRECTORY = 'warehouse';

/**
 * Opens chDB under the data directory, or the ClickHouse server of CLICKHOUSE_URL (a node of
 * the cluster TALLY_CLICKHOUSE_CLUSTER when it is set), and migrates it.
 */
export async function openWarehouse(options: WarehouseOptions): Promise<Warehouse> {
  const warehouse = options.clickhouseUrl
    ? new ClickhouseWarehouse(options.clickhouseUrl, options.clickhouseDatabase, options.clickhouseCluster)
    : new ChdbWarehouse(path.join(options.dataDir, WAREHOUSE_DIRECTORY));
  try {
    await migrateWarehouse(warehouse);
  } catch (error) {
    await warehouse.close();
    throw error;
  }
  return warehouse;
}
