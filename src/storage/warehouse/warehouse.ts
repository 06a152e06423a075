import type { WarehouseColumn } from './row-binary.js';
import type { WarehouseLayout } from './warehouse-layout.js';

/**
 * The analytics store, spoken to in ClickHouse SQL. Every value reaches SQL as a bound
 * `{name:Type}` parameter; `params` holds their values.
 */
export type QueryParams = Record<string, unknown>;

/** Rows as lists, and the type of each column. */
export interface TypedRows {
  types: string[];
  rows: unknown[][];
}

/** ClickHouse's JSONCompact answer: column names and types, then the rows as lists. */
export interface JsonCompactAnswer {
  meta?: Array<{ name: string; type: string }>;
  data: unknown[][];
}

export function typedRows(answer: JsonCompactAnswer): TypedRows {
  return { types: (answer.meta ?? []).map((column) => column.type), rows: answer.data };
}

export type WarehouseKind = 'chdb' | 'clickhouse';

export interface Warehouse {
  readonly kind: WarehouseKind;
  /** One node or a cluster: what Tally's own DDL is generated for. */
  readonly layout: WarehouseLayout;
  /** Runs a SELECT and returns its rows (64-bit integers come back as strings). */
  query<T = Record<string, unknown>>(sql: string, params?: QueryParams): Promise<T[]>;
  /**
   * Runs a SELECT and returns its rows as lists in column order, with each column's ClickHouse
   * type, in one round trip.
   */
  queryColumns(sql: string, params?: QueryParams): Promise<TypedRows>;
  /** Runs a statement that returns no rows (DDL, DELETE, INSERT … SELECT). */
  command(sql: string, params?: QueryParams): Promise<void>;
  /** Inserts rows as JSONEachRow; resolves once the rows are durable. */
  insert(table: string, rows: readonly object[]): Promise<void>;
  /** Inserts rows already serialised as JSONEachRow (one JSON object per line), as text or UTF-8 bytes. */
  insertJsonEachRow(table: string, lines: string | Uint8Array): Promise<void>;
  /**
   * Inserts rows encoded in RowBinary, each holding `columns` in order, given in pieces whose bytes
   * follow one another; resolves once they are durable.
   */
  insertRowBinary(table: string, columns: readonly WarehouseColumn[], rows: readonly Uint8Array[]): Promise<void>;
  /**
   * The keys, among `keys` (each the values of `columns`, in order), that rows of `table` hold,
   * each as its values' text (a UUID in lower case, a number in decimal). May answer more keys
   * the table holds than were asked for.
   */
  storedKeys(table: string, columns: readonly WarehouseColumn[], keys: readonly (readonly unknown[])[]): Promise<string[][]>;
  close(): Promise<void>;
}
