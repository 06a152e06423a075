import type { Warehouse } from '../../storage/warehouse/warehouse.js';
import { aggregatesInTwoLevels, bucketExpression, simpleAggregate } from './series-math.js';
import { countsFirstSeen, toSeriesRow, type RawRow, type SeriesQueryWithoutBreakdown, type SeriesRow } from './series-query.js';
import { RangeScope, seriesConditions } from './series-scope.js';

/** True when a series is one plain aggregate over its events (buildSeriesSql's last case), so it can share a scan. */
export function sharesScan(query: SeriesQueryWithoutBreakdown): boolean {
  const { math } = query.series.entity;
  return math.kind !== 'active' && !aggregatesInTwoLevels(math) && !countsFirstSeen(query);
}

/**
 * Several series of one period (no breakdown) in a single scan: the scan reads the events any of
 * them counts, and each series' aggregate takes only the rows meeting its own conditions. A
 * formula A/B or a multi-series chart then costs one pass over the events instead of one each.
 * Returns each query's rows, in order.
 */
export async function querySeriesTogether(queries: SeriesQueryWithoutBreakdown[], warehouse: Warehouse): Promise<SeriesRow[][]> {
  const [first] = queries;
  if (!first) return [];
  const { range, timeSeries } = first;
  const scope = RangeScope.forRange(first.series, range.roundedFrom, range.to);
  const matches: string[] = [];
  for (const query of queries) {
    const conditions = await seriesConditions(query.series, scope.source, scope.params);
    matches.push(conditions.length > 0 ? conditions.join(' AND ') : '1');
  }
  const values = queries.map(
    (query, index) => `${simpleAggregate(query.series.entity.math, scope.source, scope.params, `(${matches[index]})`)} AS value_${index}`,
  );
  const keys = timeSeries ? [`${bucketExpression(range.interval, 'e.timestamp', range.weekStartDay)} AS bucket`] : [];
  const anyMatch = `(${matches.map((match) => `(${match})`).join(' OR ')})`;
  const sql = `SELECT ${[...keys, ...values].join(', ')}
${scope.fromWhere([anyMatch])}
${timeSeries ? 'GROUP BY bucket' : ''}`;
  const rows = await warehouse.query<Record<string, RawRow['value'] | undefined>>(sql, scope.params.all);
  return queries.map((_, index) =>
    rows.map((row) => toSeriesRow({ ...(timeSeries ? { bucket: String(row.bucket) } : {}), value: row[`value_${index}`] ?? null })),
  );
}
