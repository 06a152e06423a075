import { sql } from 'kysely';
import type { CatalogDb, CatalogTransaction } from '../storage/catalog/catalog.js';

/**
 * The count of transactions that wrote persons, in any process. A person write claims it as its
 * transaction's first statement: the row lock makes person writes of every process on the
 * catalog run one after another, and a writer that read persons before its transaction (the
 * ingestion consumer, from its cache) learns whether someone else wrote them meanwhile.
 */
export class PersonWriteEpoch {
  constructor(private readonly db: CatalogDb) {}

  /** The count of person writes committed so far. */
  async current(): Promise<number> {
    const row = await this.db.selectFrom('person_write_epoch').select('epoch').where('id', '=', 1).executeTakeFirstOrThrow();
    return Number(row.epoch);
  }

  /**
   * Counts the transaction `trx` as a person write, holding the row until it ends; returns the
   * count before it, which is `current()` as of the last person write committed before it.
   */
  async claim(trx: CatalogTransaction): Promise<number> {
    const row = await sql<{ epoch: number | string }>`UPDATE person_write_epoch SET epoch = epoch + 1 WHERE id = 1 RETURNING epoch`.execute(trx);
    return Number(row.rows[0]!.epoch) - 1;
  }
}
