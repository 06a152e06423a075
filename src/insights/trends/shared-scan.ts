import type { Warehouse } from '../../storage/warehouse/warehouse.js';
import { bucketExpression, isSessionDurationMath, simpleAggregate } from './series-math.js';
import { toSeriesRow, type RawRow, type SeriesQuery, type SeriesRow } from './series-query.js';
import { RangeScope, seriesConditions } from './series-scope.js';

export type UnbrokenSeriesQuery = Omit<SeriesQuery, 'breakdown'>;

/** True when a series is one plain aggregate over its events, so it can share a scan with others. */
export function sharesScan(query: UnbrokenSeriesQuery): boolean {
  const { math } = query.series.entity;
  if (math.kind === 'active' || math.kind === 'count_per_actor' || isSessionDurationMath(math)) return false;
  return !(query.firstSeenOnly && query.timeSeries && (math.kind === 'dau' || math.kind === 'unique_group'));
}

/**
 * Several series of one period (no breakdown) in a single scan: the scan reads the events any of
 * them counts, and each series' aggregate takes only the rows meeting its own conditions. A
 * formula A/B or a multi-series chart then costs one pass over the events instead of one each.
 * Returns each query's rows, in order.
 */
export async function querySeriesTogether(queries: UnbrokenSeriesQuery[], warehouse: Warehouse): Promise<SeriesRow[][]> {
  const [first] = queries;
  if (!first) return [];
  const { range, timeSeries } = first;
  const scope = RangeScope.create(first.series, range.roundedFrom, range.to);
  const matches: string[] = [];
  for (const query of queries) {
    const conditions = await seriesConditions(query.series, scope.source, scope.params);
    matches.push(conditions.length > 0 ? conditions.join(' AND ') : '1');
  }
  const values = queries.map(
    (query, index) => `${simpleAggregate(query.series.entity.math, scope.source, scope.params, `(${matches[index]})`)} AS value_${index}`,
  );
  const keys = timeSeries ? [`${bucketExpression(range.interval, 'e.timestamp', range.weekStartDay)} AS bucket`] : [];
  const where = [...scope.conditions, `(${matches.map((match) => `(${match})`).join(' OR ')})`];
  const sql = `SELECT ${[...keys, ...values].join(', ')}
${scope.source.fromClause()}
WHERE ${where.join('\n  AND ')}
${timeSeries ? 'GROUP BY bucket' : ''}`;
  const rows = await warehouse.query<Record<string, RawRow['value'] | undefined>>(sql, scope.params.all);
  return queries.map((_, index) =>
    rows.map((row) => toSeriesRow({ ...(timeSeries ? { bucket: String(row.bucket) } : {}), value: row[`value_${index}`] ?? null })),
  );
}
