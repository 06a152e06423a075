import type { WarehouseColumn } from './row-binary.js';

/**
 * A name of Tally's own tables and columns, backquoted for SQL. Never a request's value; INSERT
 * column lists (and servers before identifier parameters) take no parameters, so the name is
 * checked instead.
 */
export function quotedIdentifier(name: string): string {
  if (!/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name)) throw new Error(`not a warehouse identifier: ${name}`);
  return `\`${name}\``;
}

/** The columns' names, quoted and comma-separated, as an INSERT column list or a tuple. */
export function columnList(columns: readonly WarehouseColumn[]): string {
  return columns.map(({ name }) => quotedIdentifier(name)).join(', ');
}

/**
 * The `Warehouse.storedKeys` SELECT: each key column's text, from `table` where `condition`
 * holds. The aliases are not the column names: ClickHouse would apply them inside WHERE too.
 */
export function storedKeysSelect(table: string, columns: readonly WarehouseColumn[], condition: string): string {
  const keys = columns.map(({ name }, index) => `toString(${quotedIdentifier(name)}) AS key_${index}`).join(', ');
  return `SELECT ${keys} FROM ${quotedIdentifier(table)} WHERE ${condition}`;
}

/** The keys a `storedKeysSelect` answered, each as its columns' values in order. */
export function keysOfRows(rows: readonly Record<string, string>[], columns: readonly WarehouseColumn[]): string[][] {
  return rows.map((row) => columns.map((_, index) => row[`key_${index}`]!));
}
