import type { Selectable } from 'kysely';
import { AppendOrderedTable, holdAppendOrder } from '../catalog/append-order.js';
import type { CatalogDb, CatalogTransaction } from '../catalog/catalog.js';
import type { CatalogDialect } from '../catalog/dialect.js';
import type { WarehouseOutboxTable } from '../catalog/schema.js';
import { chunks } from '../../util/chunks.js';
import { packOutboxEntries, type OutboxEntry } from './outbox.js';

/** Outbox rows per insert statement: few, as each may be a thousand replica rows long. */
const ROWS_PER_INSERT = 20;

/** The catalog's `warehouse_outbox`: replica writes queued by the transactions that make them, oldest first. */
export class OutboxRepository {
  constructor(
    private readonly db: CatalogDb,
    private readonly dialect: CatalogDialect,
  ) {}

  withTransaction(trx: CatalogTransaction): OutboxRepository {
    return new OutboxRepository(trx, this.dialect);
  }

  /** Queues replica writes, in order; written in the change's own transaction (see `withTransaction`). */
  async append(entries: readonly OutboxEntry[]): Promise<void> {
    if (entries.length === 0) return;
    // The relay reads the outbox by id: rows must become visible in id order.
    await holdAppendOrder(this.db, this.dialect, AppendOrderedTable.WarehouseOutbox);
    for (const rows of chunks(packOutboxEntries(entries), ROWS_PER_INSERT)) {
      await this.db
        .insertInto('warehouse_outbox')
        .values(rows.map((row) => ({ target: row.target, row: '', encoded: row.encoded })))
        .execute();
    }
  }

  /** Up to `limit` rows after the row `id`, oldest first. */
  after(id: number, limit: number): Promise<Selectable<WarehouseOutboxTable>[]> {
    return this.db.selectFrom('warehouse_outbox').selectAll().where('id', '>', id).orderBy('id').limit(limit).execute();
  }

  /** Deletes every row up to the row `id`. */
  async deleteThrough(id: number): Promise<void> {
    await this.db.deleteFrom('warehouse_outbox').where('id', '<=', id).execute();
  }
}
