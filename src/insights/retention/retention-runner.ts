import type { SqlResolvers } from '../../query/resolvers.js';
import type { DateTime } from 'luxon';
import type { Project } from '../../projects/project.js';
import type { Warehouse } from '../../storage/warehouse/warehouse.js';
import { combineAnd, type PropertyGroup } from '../../query/property-filter-model.js';
import { testAccountFilters } from '../actors/analysis-inputs.js';
import { MAX_MASK_INTERVALS, retentionActorRows, retentionCohortCounts, type RetentionActorQuery } from './retention-actor-sql.js';
import type { RetentionFilter } from './retention-filter.js';

/** One row of a retention table: a cohort period, or a breakdown value. */
export interface RetentionRow {
  /** The row's breakdown values; null for a cohort period. */
  breakdownValues: string[] | null;
  /** The cohort's index (0 = the first period of the window); null for a breakdown row. */
  cohort: number | null;
  /** Start of the cohort's period, in the project timezone; null for a breakdown row. */
  date: DateTime | null;
  /**
   * Actors counted at interval k after the row's cohorts, for k = 0 … totalIntervals − 1
   * (index 0 is the row's size). Intervals past the window count 0.
   */
  counts: number[];
}

export interface RetentionResult {
  rows: RetentionRow[];
}

/** Where a retention query reads: the project, and the filters every event must pass. */
export interface RetentionTarget {
  project: Project;
  filter: RetentionFilter;
  /** Extra filters on every event (the actors endpoint's search); the test-account filters are added here. */
  extraProperties?: PropertyGroup;
}

function periodStart(filter: RetentionFilter, cohort: number): DateTime {
  return filter.start.plus({ [`${filter.period}s`]: cohort });
}

/**
 * Runs legacy retention: the per-actor SQL of retention-actor-sql.ts counted
 * per row and interval in the warehouse. Without breakdowns there is a row for every cohort
 * period of the window, zero-filled; with breakdowns a row per breakdown value found, largest
 * first.
 */
export class RetentionRunner {
  constructor(
    private readonly warehouse: Warehouse,
    private readonly resolvers: SqlResolvers,
  ) {}

  private actorQuery({ project, filter, extraProperties }: RetentionTarget): RetentionActorQuery {
    return {
      teamId: project.id,
      timezone: project.timezone,
      weekStartDay: project.weekStartDay ?? 0,
      filter,
      properties: combineAnd(filter.properties, testAccountFilters(project, filter), extraProperties ?? combineAnd()),
      resolvers: this.resolvers,
    };
  }

  /** The per-actor rows of a retention query, for the table and for its actors alike. */
  actorRows(target: RetentionTarget) {
    return retentionActorRows(this.actorQuery(target));
  }

  async run(project: Project, filter: RetentionFilter): Promise<RetentionResult> {
    if (filter.breakdowns.length === 0 && filter.totalIntervals <= MAX_MASK_INTERVALS) return this.cohortTable(project, filter);
    const { scope, sql } = await this.actorRows({ project, filter });
    const total = scope.params.add(filter.totalIntervals, 'Int64');
    const counted = await this.warehouse.query<{ row_key: string[]; interval: number | string; actors: number | string }>(
      `SELECT entry.1 AS row_key, entry.2 AS interval, count() AS actors
FROM (${sql})
ARRAY JOIN entries AS entry
WHERE entry.2 < ${total}
GROUP BY row_key, interval`,
      scope.params.all,
    );
    const byKey = new Map<string, { key: string[]; counts: number[] }>();
    for (const row of counted) {
      const id = JSON.stringify(row.row_key);
      let entry = byKey.get(id);
      if (!entry) {
        entry = { key: row.row_key, counts: new Array<number>(filter.totalIntervals).fill(0) };
        byKey.set(id, entry);
      }
      entry.counts[Number(row.interval)] = Number(row.actors);
    }
    if (filter.breakdowns.length > 0) {
      const rows = [...byKey.values()].map(({ key, counts }) => ({ breakdownValues: key, cohort: null, date: null, counts }));
      rows.sort((a, b) => b.counts[0]! - a.counts[0]! || compareKeys(a.breakdownValues, b.breakdownValues));
      return { rows };
    }
    return cohortRows(filter, (cohort) => byKey.get(JSON.stringify([String(cohort)]))?.counts);
  }

  /** The cohort table counted from per-actor masks: the same numbers as the entries, in less time. */
  private async cohortTable(project: Project, filter: RetentionFilter): Promise<RetentionResult> {
    const { scope, sql } = await retentionCohortCounts(this.actorQuery({ project, filter }));
    const [row] = await this.warehouse.query<{ counts: Array<number | string> }>(sql, scope.params.all);
    const total = filter.totalIntervals;
    const flat = row?.counts ?? [];
    return cohortRows(filter, (cohort) => (flat.length === 0 ? undefined : flat.slice(cohort * total, (cohort + 1) * total).map(Number)));
  }
}

/** A row for every cohort period of the window, zero-filled where no actor counts. */
function cohortRows(filter: RetentionFilter, countsOf: (cohort: number) => number[] | undefined): RetentionResult {
  const rows: RetentionRow[] = [];
  for (let cohort = 0; cohort < filter.totalIntervals; cohort++) {
    const counts = countsOf(cohort) ?? new Array<number>(filter.totalIntervals).fill(0);
    rows.push({ breakdownValues: null, cohort, date: periodStart(filter, cohort), counts });
  }
  return { rows };
}

function compareKeys(a: string[], b: string[]): number {
  const left = a.join('::');
  const right = b.join('::');
  return left < right ? -1 : left > right ? 1 : 0;
}
