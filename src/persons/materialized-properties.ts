import { createHash } from 'node:crypto';
import { rawPropertyValue } from '../insights/property-filters.js';
import { SqlParams } from '../insights/sql-params.js';
import type { Warehouse } from '../storage/warehouse/warehouse.js';

/** At most this many person properties get a column; filters on others read the JSON. */
export const MAX_MATERIALIZED_PERSON_PROPERTIES = 64;

const COLUMN_PREFIX = 'pmat_';

/**
 * The column that holds a person property's raw value. The name is ours, not the key: a readable
 * slug (identifier characters only, so it needs no quoting) and a hash of the whole key, so keys
 * that slug alike stay apart and the name alone says which key a column holds.
 */
export function materializedColumnName(key: string): string {
  const slug = key
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 32);
  const hash = createHash('sha256').update(key).digest('hex').slice(0, 16);
  return `${COLUMN_PREFIX}${slug}_${hash}`;
}

/**
 * Person properties stored by key on the persons replica, as PostHog's `pmat_*` columns: a
 * filter on one reads a short string column instead of parsing every person's JSON (a fifth of
 * the time on 1M persons). Each column is MATERIALIZED with the compiler's own raw-value
 * expression over `properties`, so ClickHouse fills it on every insert and the filter means
 * exactly what it means on the JSON. A key gets its column the first time a filter needs it;
 * parts written before then compute it on read (correct, as slow as the JSON) until the
 * background mutation has stored it.
 */
export class MaterializedPersonProperties {
  private existing: Promise<Set<string>> | null = null;
  private readonly adding = new Map<string, Promise<void>>();

  constructor(
    private readonly warehouse: Warehouse,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** The columns of these keys, key → column name, adding those missing while there is room. */
  async columnsFor(keys: Iterable<string>): Promise<ReadonlyMap<string, string>> {
    const existing = await this.existingColumns();
    const columns = new Map<string, string>();
    for (const key of new Set(keys)) {
      const column = materializedColumnName(key);
      if (!existing.has(column)) {
        if (existing.size + this.adding.size >= MAX_MATERIALIZED_PERSON_PROPERTIES && !this.adding.has(column)) continue;
        await this.add(key, column, existing);
      }
      columns.set(key, column);
    }
    return columns;
  }

  private existingColumns(): Promise<Set<string>> {
    this.existing ??= this.warehouse
      .query<{ name: string }>(
        `SELECT name FROM system.columns
         WHERE database = currentDatabase() AND table = 'persons' AND startsWith(name, {prefix:String})`,
        { prefix: COLUMN_PREFIX },
      )
      .then((rows) => new Set(rows.map((row) => row.name)))
      .catch((error: unknown) => {
        this.existing = null;
        throw error;
      });
    return this.existing;
  }

  /** Adds the column once however many requests ask at the same time. */
  private async add(key: string, column: string, existing: Set<string>): Promise<void> {
    let adding = this.adding.get(column);
    if (adding === undefined) {
      adding = this.addColumn(key, column).finally(() => this.adding.delete(column));
      this.adding.set(column, adding);
    }
    await adding;
    existing.add(column);
  }

  private async addColumn(key: string, column: string): Promise<void> {
    const params = new SqlParams();
    // The key is a bound parameter; ClickHouse stores it in the column's definition as a literal.
    await this.warehouse.command(
      `ALTER TABLE persons ADD COLUMN IF NOT EXISTS ${column} String MATERIALIZED ${rawPropertyValue('properties', key, params)}`,
      params.all,
    );
    // Stores the column in the parts written before it existed; until then reads compute it.
    void this.warehouse.command(`ALTER TABLE persons MATERIALIZE COLUMN ${column}`).catch(this.onError);
  }
}
