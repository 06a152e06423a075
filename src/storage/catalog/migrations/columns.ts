import { sql, type ColumnDefinitionBuilder, type CreateTableBuilder } from 'kysely';
import type { CatalogDialect } from '../dialect.js';

/**
 * An integer primary key that is never reused after a delete: SQLite needs AUTOINCREMENT for
 * that guarantee, PostgreSQL sequences give it anyway.
 */
export function withSerialId<T extends string>(table: CreateTableBuilder<T, never>, dialect: CatalogDialect): CreateTableBuilder<T, 'id'> {
  return dialect === 'sqlite'
    ? table.addColumn('id', 'integer', (col: ColumnDefinitionBuilder) => col.primaryKey().autoIncrement())
    : table.addColumn('id', sql`serial`, (col: ColumnDefinitionBuilder) => col.primaryKey());
}
