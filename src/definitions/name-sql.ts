import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import type { CatalogDialect } from '../storage/catalog/dialect.js';

function likePattern(term: string): string {
  return `%${term.toLowerCase().replace(/[!%_]/g, (character) => `!${character}`)}%`;
}

/** Every term is a case-insensitive substring of the column (wildcards in terms match literally). */
export function containsEveryTerm(column: string, terms: string[]): Expression<SqlBool> {
  const conditions = terms.map((term) => sql<SqlBool>`lower(${sql.ref(column)}) like ${likePattern(term)} escape '!'`);
  return sql<SqlBool>`(${sql.join(conditions, sql` and `)})`;
}

/**
 * A name column ordered by code point on both catalogs, so `$pageview` sorts before letters and
 * the order does not depend on the PostgreSQL server's locale.
 */
export function byteOrdered(dialect: CatalogDialect, column: string): RawBuilder<string> {
  return dialect === 'postgres' ? sql<string>`${sql.ref(column)} collate "C"` : sql<string>`${sql.ref(column)}`;
}
