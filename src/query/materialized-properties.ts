import { createHash } from 'node:crypto';
import type { Warehouse } from '../storage/warehouse/warehouse.js';
import { rawPropertyValue } from './property-filters.js';
import type { EventPropertyColumnResolver } from './resolvers.js';
import { SqlParams } from './sql-params.js';

/** A warehouse table whose JSON `properties` may be stored by key in columns of their own. */
export interface MaterializedPropertiesTable {
  table: 'persons' | 'events';
  /** The start of every such column's name, which says what the column is. */
  prefix: string;
  /**
   * At most this many keys get a column; the others read the JSON. Every column is computed on
   * every insert into the table, so the limit bounds what they add to ingestion.
   */
  limit: number;
}

/** Person properties, as PostHog's `pmat_*` columns. */
export const PERSON_PROPERTY_COLUMNS: MaterializedPropertiesTable = { table: 'persons', prefix: 'pmat_', limit: 64 };

/** Event properties, as PostHog's `mat_*` columns. */
export const EVENT_PROPERTY_COLUMNS: MaterializedPropertiesTable = { table: 'events', prefix: 'mat_', limit: 20 };

/** Longer keys are read from the JSON: a column's definition holds its key. */
export const MAX_MATERIALIZED_KEY_LENGTH = 200;

/**
 * The column that holds a property's value as rawPropertyValue reads it. The name is ours, not
 * the key: a readable slug (identifier characters only, so it needs no quoting) and a hash of the
 * whole key, so keys that slug alike stay apart and the name alone says which key a column holds.
 */
export function materializedColumnName(prefix: string, key: string): string {
  const slug = key
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 32);
  const hash = createHash('sha256').update(key).digest('hex').slice(0, 16);
  return `${prefix}${slug}_${hash}`;
}

/**
 * Properties stored by key in columns of their own, as PostHog's materialized columns: a filter
 * or breakdown on one reads a short string column instead of parsing the JSON of every row (a
 * 30-day event property filter on 10M events: 16 ms instead of 44; a breakdown by `$browser`:
 * 41 ms instead of 290). Each column is MATERIALIZED with the compiler's own value expression
 * over `properties`, so ClickHouse fills it on every insert and a read of it means exactly what
 * the JSON read means. A key gets its column the first time a query reads it; parts written
 * before then compute it on read (correct, as slow as the JSON) until the background mutation
 * has stored it.
 */
export class MaterializedProperties implements EventPropertyColumnResolver {
  private existing: Promise<Set<string>> | null = null;
  /** The columns known to exist, once listed: what `columnOf` answers from. */
  private known: Set<string> | null = null;
  private readonly adding = new Map<string, Promise<boolean>>();
  /** Columns that could not be added (say, a ClickHouse user without ALTER): not tried again by this process. */
  private readonly refused = new Set<string>();

  constructor(
    private readonly warehouse: Warehouse,
    private readonly spec: MaterializedPropertiesTable,
    private readonly onError: (error: unknown) => void,
  ) {}

  /**
   * The columns of these keys, key → column name, adding those missing while there is room. A key
   * without a column (too long, over the limit, or the warehouse refused it) is left out: its reads use the JSON.
   */
  async columnsFor(keys: Iterable<string>): Promise<ReadonlyMap<string, string>> {
    const columns = new Map<string, string>();
    const existing = await this.existingColumns();
    if (existing === null) return columns;
    for (const key of new Set(keys)) {
      if (key.length > MAX_MATERIALIZED_KEY_LENGTH) continue;
      const column = materializedColumnName(this.spec.prefix, key);
      if (existing.has(column) || (await this.added(key, column, existing))) columns.set(key, column);
    }
    return columns;
  }

  /**
   * The key's column when it exists now; otherwise undefined, and the column is added in the
   * background for the queries that follow. For SQL built without waiting on the warehouse.
   */
  columnOf(key: string): string | undefined {
    if (key.length > MAX_MATERIALIZED_KEY_LENGTH) return undefined;
    const column = materializedColumnName(this.spec.prefix, key);
    if (this.known?.has(column)) return column;
    void this.columnsFor([key]);
    return undefined;
  }

  private async existingColumns(): Promise<Set<string> | null> {
    this.existing ??= this.warehouse
      .query<{ name: string }>(
        `SELECT name FROM system.columns
         WHERE database = currentDatabase() AND table = {table:String} AND startsWith(name, {prefix:String})`,
        { table: this.spec.table, prefix: this.spec.prefix },
      )
      .then((rows) => {
        this.known = new Set(rows.map((row) => row.name));
        return this.known;
      });
    try {
      return await this.existing;
    } catch (error) {
      this.existing = null;
      this.onError(error);
      return null;
    }
  }

  /** Adds the column once however many requests ask at the same time; false when it was not added. */
  private added(key: string, column: string, existing: Set<string>): Promise<boolean> {
    const inFlight = this.adding.get(column);
    if (inFlight !== undefined) return inFlight;
    if (this.refused.has(column) || existing.size + this.adding.size >= this.spec.limit) return Promise.resolve(false);
    const adding = this.addColumn(key, column)
      .then(() => {
        existing.add(column);
        return true;
      })
      .catch((error: unknown) => {
        this.refused.add(column);
        this.onError(error);
        return false;
      })
      .finally(() => this.adding.delete(column));
    this.adding.set(column, adding);
    return adding;
  }

  /**
   * Adds the column to each table that carries it: on a cluster, the shards' tables before the
   * Distributed table, whose columns are the ones listed as existing, so a listed column exists
   * on the shards too.
   */
  private async addColumn(key: string, column: string): Promise<void> {
    const { layout } = this.warehouse;
    const params = new SqlParams();
    // The key is a bound parameter; ClickHouse stores it in the column's definition as a literal.
    const definition = `${column} String MATERIALIZED ${rawPropertyValue('properties', key, params)}`;
    for (const table of layout.columnTables(this.spec.table)) {
      await this.warehouse.command(`ALTER TABLE ${table}${layout.onCluster} ADD COLUMN IF NOT EXISTS ${definition}`, params.all);
    }
    // Stores the column in the parts written before it existed; until then reads compute it.
    void this.warehouse.command(`ALTER TABLE ${layout.storedTable(this.spec.table)}${layout.onCluster} MATERIALIZE COLUMN ${column}`).catch(this.onError);
  }
}
