import { sql, type Expression, type SqlBool } from 'kysely';
import type { CatalogDb, CatalogTransaction } from '../storage/catalog/catalog.js';
import type { CatalogDialect } from '../storage/catalog/dialect.js';
import { chunks } from '../util/chunks.js';
import type { ProjectIngestionWarning } from './ingestion-warning.js';

/** Warnings per insert statement: four parameters each, well under every bound-parameter limit. */
const ROWS_PER_STATEMENT = 500;

/** The latest warnings listed of each type, as PostHog lists them. */
const EXAMPLES_PER_TYPE = 50;

export interface StoredIngestionWarning {
  type: string;
  timestamp: string;
  details: Record<string, unknown>;
}

/** The warnings of one type: how many, per day, and the latest. */
export interface IngestionWarningSummary {
  type: string;
  lastSeen: string;
  /** `[count, day]` per day with warnings of the type. */
  sparkline: [number, string][];
  warnings: StoredIngestionWarning[];
  count: number;
}

/** The catalog's `ingestion_warnings`. */
export class IngestionWarningRepository {
  constructor(
    private readonly db: CatalogDb,
    private readonly dialect: CatalogDialect,
  ) {}

  withTransaction(trx: CatalogTransaction): IngestionWarningRepository {
    return new IngestionWarningRepository(trx, this.dialect);
  }

  /** Stores warnings; ingestion stores them in the transaction of the batch that found them. */
  async record(warnings: readonly ProjectIngestionWarning[]): Promise<void> {
    for (const chunk of chunks(warnings, ROWS_PER_STATEMENT)) {
      await this.db
        .insertInto('ingestion_warnings')
        .values(
          chunk.map((warning) => ({
            team_id: warning.teamId,
            type: warning.type,
            details: JSON.stringify(warning.details),
            timestamp: new Date(warning.at).toISOString(),
          })),
        )
        .execute();
    }
  }

  /**
   * A project's warnings since `since` (ISO), by type, newest type first; `search` keeps those
   * whose type or details contain it.
   */
  async summaries(teamId: number, since: string, search: string | null): Promise<IngestionWarningSummary[]> {
    const matching = (column: 'type' | 'details', text: string): Expression<SqlBool> =>
      this.dialect === 'sqlite' ? sql<SqlBool>`instr(${sql.ref(column)}, ${text}) > 0` : sql<SqlBool>`strpos(${sql.ref(column)}, ${text}) > 0`;
    const scope = this.db
      .selectFrom('ingestion_warnings')
      .where('team_id', '=', teamId)
      .where('timestamp', '>', since)
      .$if(search !== null, (query) => query.where((eb) => eb.or([matching('type', search!), matching('details', search!)])));
    const day = sql<string>`substr(${sql.ref('timestamp')}, 1, 10)`;
    const days = await scope
      .select(['type', day.as('day'), (eb) => eb.fn.countAll<number | string>().as('count')])
      .groupBy(['type', day])
      .execute();
    const byType = new Map<string, IngestionWarningSummary>();
    for (const row of days) {
      let summary = byType.get(row.type);
      if (!summary) {
        summary = { type: row.type, lastSeen: '', sparkline: [], warnings: [], count: 0 };
        byType.set(row.type, summary);
      }
      summary.sparkline.push([Number(row.count), row.day]);
      summary.count += Number(row.count);
    }
    for (const summary of byType.values()) {
      summary.sparkline.sort((a, b) => (a[1] < b[1] ? -1 : 1));
      const latest = await scope
        .select(['timestamp', 'details'])
        .where('type', '=', summary.type)
        .orderBy('timestamp', 'desc')
        .orderBy('id', 'desc')
        .limit(EXAMPLES_PER_TYPE)
        .execute();
      summary.warnings = latest.map((row) => ({ type: summary.type, timestamp: row.timestamp, details: JSON.parse(row.details) as Record<string, unknown> }));
      summary.lastSeen = latest[0]?.timestamp ?? '';
    }
    return [...byType.values()].sort((a, b) => (a.lastSeen < b.lastSeen ? 1 : a.lastSeen > b.lastSeen ? -1 : 0));
  }
}
