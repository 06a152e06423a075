import type { Warehouse } from './warehouse.js';

/** Bytes the warehouse's tables take on disk: their active parts, in the warehouse's database. */
export async function warehouseSizeBytes(warehouse: Warehouse): Promise<number> {
  const [row] = await warehouse.query<{ bytes: string | number | null }>(
    'SELECT sum(bytes_on_disk) AS bytes FROM system.parts WHERE active AND database = currentDatabase()',
  );
  return Number(row?.bytes ?? 0);
}
