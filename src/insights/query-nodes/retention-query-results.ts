import type { Project } from '../../projects/project.js';
import { BREAKDOWN_OTHER } from '../trends/breakdown.js';
import { pythonIsoformat } from '../trends/persons-urls.js';
import { periodName } from '../retention/retention-filter.js';
import type { RetentionRow, RetentionRunner } from '../retention/retention-runner.js';
import type { InsightQueryAnswer } from './insight-query-answer.js';
import { errorInRetentionQuery, type RetentionQueryPlan } from './retention-query.js';

/** One row of a RetentionQuery's results: a cohort, or a breakdown value. */
export interface RetentionQueryRow {
  values: Array<{ count: number; label: string }>;
  label: string;
  date: string;
  breakdown_value?: string;
}

/** Rows past the `limit` largest, summed into one, as PostHog's retention sums the values it leaves out. */
function limitRows(rows: RetentionRow[], limit: number | null): RetentionRow[] {
  if (limit === null || rows.length <= limit) return rows;
  const other = rows.slice(limit).reduce(
    (sum, row) => sum.map((count, index) => count + (row.counts[index] ?? 0)),
    rows[0]!.counts.map(() => 0),
  );
  return [...rows.slice(0, limit), { breakdownValues: [BREAKDOWN_OTHER], cohort: null, date: null, counts: other }];
}

/**
 * Computes a translated RetentionQuery with the legacy retention runner, so its numbers are
 * those of `/insights/retention/`. PostHog's runner answers a square matrix: every cohort has
 * `totalIntervals` values, so the legacy triangle is padded with zeros (returns after `date_to`
 * are never counted either way). A breakdown answers the legacy breakdown rows (one per value,
 * every interval), labelled by their value and dated at the first cohort's start.
 */
export async function runRetentionQuery(runner: RetentionRunner, project: Project, plan: RetentionQueryPlan): Promise<InsightQueryAnswer<RetentionQueryRow[]>> {
  const { filter } = plan;
  let rows: RetentionRow[];
  try {
    ({ rows } = await runner.run(project, filter));
  } catch (error) {
    throw errorInRetentionQuery(error, plan.path);
  }
  const period = periodName(filter.period);
  const values = (counts: number[], length: number) =>
    counts.slice(0, filter.totalIntervals).map((count, interval) => ({ count: interval < length ? count : 0, label: `${period} ${interval}` }));
  const resolvedDateRange = { date_from: filter.start.toISO()!, date_to: filter.end.toISO()! };
  if (filter.breakdowns.length > 0) {
    const results = limitRows(rows, plan.breakdownLimit).map((row) => {
      const label = row.breakdownValues!.join('::');
      return { values: values(row.counts, filter.totalIntervals), label, date: pythonIsoformat(filter.start), breakdown_value: label };
    });
    return { results, hasMore: false, resolvedDateRange };
  }
  const results = rows.map((row) => ({
    values: values(row.counts, filter.totalIntervals - row.cohort!),
    label: `${period} ${row.cohort}`,
    date: pythonIsoformat(row.date!),
  }));
  return { results, hasMore: false, resolvedDateRange };
}
