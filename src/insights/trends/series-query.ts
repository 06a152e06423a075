import type { Warehouse } from '../../storage/warehouse/warehouse.js';
import { activeUsersAggregateStart, activeUsersWindow, formatDay, toWarehouseTime, type QueryDateRange } from '../../query/date-range.js';
import type { BreakdownPlan } from './breakdown.js';
import { SeriesScope, type SeriesDefinition } from './series-scope.js';
import { actorExpression, aggregateFunction, aggregatesInTwoLevels, bucketExpression, simpleAggregate } from './series-math.js';

/** One aggregated row: a bucket key (time series) and/or a breakdown value, and the value. */
export interface SeriesRow {
  bucket?: string;
  breakdown_value?: string | number;
  value: number | null;
}

export interface SeriesQuery {
  series: SeriesDefinition;
  range: QueryDateRange;
  /** False for the aggregate displays: one value over the whole range. */
  timeSeries: boolean;
  /** Cumulative display of unique persons/groups: each actor counts once, where first seen. */
  firstSeenOnly: boolean;
  breakdown: BreakdownPlan | null;
}

/** A series query before its breakdown, if any, is planned. */
export type SeriesQueryWithoutBreakdown = Omit<SeriesQuery, 'breakdown'>;

/** Cumulative unique persons or groups: each actor counts once, in the bucket where it was first seen. */
export function countsFirstSeen(query: SeriesQueryWithoutBreakdown): boolean {
  const { kind } = query.series.entity.math;
  return query.firstSeenOnly && query.timeSeries && (kind === 'dau' || kind === 'unique_group');
}

export interface RawRow {
  bucket?: string;
  breakdown_value?: string | number;
  value: number | string | null;
}

function selectList(keys: string[], value: string): string {
  return [...keys, value].join(', ');
}

function groupByClause(aliases: string[]): string {
  return aliases.length > 0 ? `GROUP BY ${aliases.join(', ')}` : '';
}

/**
 * Runs the one aggregate query of a series: ClickHouse groups by bucket (in the project
 * timezone) and breakdown value; zero-filling and shaping happen in the caller.
 */
export async function querySeries(query: SeriesQuery, warehouse: Warehouse): Promise<SeriesRow[]> {
  const { sql, params } = await buildSeriesSql(query);
  const rows = await warehouse.query<RawRow>(sql, params);
  return rows.map(toSeriesRow);
}

/** ClickHouse's JSON gives 64-bit counts as strings and NaN as null: the value as a number or null. */
export function toSeriesRow(row: RawRow): SeriesRow {
  return { ...row, value: row.value === null || row.value === undefined ? null : Number(row.value) };
}

export async function buildSeriesSql(query: SeriesQuery): Promise<{ sql: string; params: Record<string, unknown> }> {
  const { series, range, timeSeries, breakdown } = query;
  const math = series.entity.math;
  const { interval, weekStartDay } = range;

  if (math.kind === 'active') {
    return timeSeries ? activeSeriesSql(query, math.windowDays) : activeAggregateSql(query, math.windowDays);
  }

  const scope = await SeriesScope.create(series, range.roundedFrom, range.to);
  const aliases: string[] = [];
  const keys: string[] = [];
  const breakdownKey = breakdown ? `${await breakdown.expression(scope)} AS breakdown_value` : null;
  const extra = breakdown ? breakdown.conditions(scope) : [];

  if (countsFirstSeen(query)) {
    const actor = math.kind === 'unique_group' ? `e.\`$group_${math.groupTypeIndex}\`` : scope.source.personId;
    const inner = [`${actor} AS actor`, ...(breakdownKey ? [breakdownKey] : []), 'min(e.timestamp) AS first_seen'];
    const outerAliases = ['bucket', ...(breakdown ? ['breakdown_value'] : [])];
    const sql = `SELECT ${bucketExpression(interval, 'first_seen', weekStartDay)} AS bucket${breakdown ? ', breakdown_value' : ''}, count() AS value
FROM (SELECT ${inner.join(', ')} ${scope.fromWhere(extra)} GROUP BY actor${breakdown ? ', breakdown_value' : ''})
${groupByClause(outerAliases)}`;
    return { sql, params: scope.params.all };
  }

  if (timeSeries) {
    keys.push(`${bucketExpression(interval, 'e.timestamp', weekStartDay)} AS bucket`);
    aliases.push('bucket');
  }
  if (breakdownKey) {
    keys.push(breakdownKey);
    aliases.push('breakdown_value');
  }

  if (aggregatesInTwoLevels(math)) {
    const perSession = math.kind === 'property';
    const unit = math.kind === 'property' ? 'e.`$session_id`' : actorExpression(math.groupTypeIndex, scope.source);
    const innerValue = perSession ? `any(${scope.source.sessionDuration}) AS inner_value` : 'count() AS inner_value';
    const sql = `SELECT ${selectList(aliases, `${aggregateFunction(math.fn)}(inner_value) AS value`)}
FROM (SELECT ${selectList(keys, innerValue)} ${scope.fromWhere(extra)} GROUP BY ${[unit, ...aliases].join(', ')})
${groupByClause(aliases)}`;
    return { sql, params: scope.params.all };
  }

  const aggregate = simpleAggregate(math, scope.source, scope.params);
  const sql = `SELECT ${selectList(keys, `${aggregate} AS value`)}
${scope.fromWhere(extra)}
${groupByClause(aliases)}`;
  return { sql, params: scope.params.all };
}

/**
 * Weekly/monthly active users per bucket: distinct persons with an event in the bucket's rolling
 * window (computed in the date module). Window bounds fall on whole hours (hourly buckets) or local
 * midnights (every other interval), so each actor is reduced to the set of slots of that size it
 * was active in — a slot (s, s + unit] lies in a window (after, upTo] when after <= s < upTo — and
 * each actor then yields one row per window one of its slots lies in: a plain count per bucket.
 */
async function activeSeriesSql(query: SeriesQuery, windowDays: number) {
  const { series, range, breakdown } = query;
  const windows = range.buckets.map((bucket) => activeUsersWindow(bucket, windowDays));
  const scope = await SeriesScope.create(series, windows[0]?.after ?? range.roundedFrom, range.to);
  const afters = scope.params.add(
    windows.map((window) => toWarehouseTime(window.after)),
    "Array(DateTime64(6, 'UTC'))",
  );
  const upTos = scope.params.add(
    windows.map((window) => toWarehouseTime(window.upTo)),
    "Array(DateTime64(6, 'UTC'))",
  );
  const bucketKeys = scope.params.add(
    range.buckets.map((bucket) => formatDay(bucket, range.interval)),
    'Array(String)',
  );
  const slotStart = range.interval === 'hour' ? 'toStartOfHour' : 'toStartOfDay';
  // The slot of an event ending exactly on a bound is the one before it: windows are closed on the right.
  const slot = `${slotStart}(toDateTime(e.timestamp - toIntervalMicrosecond(1), {timezone:String}))`;
  const actor = scope.source.personId;
  const breakdownKey = breakdown ? `, ${await breakdown.expression(scope)} AS breakdown_value` : '';
  const extra = breakdown ? breakdown.conditions(scope) : [];
  const breakdownAlias = breakdown ? ', breakdown_value' : '';
  const sql = `WITH arrayMap(bound -> toDateTime(bound), ${afters}) AS afters, arrayMap(bound -> toDateTime(bound), ${upTos}) AS up_tos
SELECT ${bucketKeys}[window] AS bucket${breakdownAlias}, count() AS value
FROM (
  SELECT actor${breakdownAlias}, groupUniqArray(slot) AS slots
  FROM (SELECT ${actor} AS actor, ${slot} AS slot${breakdownKey} ${scope.fromWhere(extra)})
  GROUP BY actor${breakdownAlias})
ARRAY JOIN arrayFilter(i -> arrayExists(s -> s >= afters[i] AND s < up_tos[i], slots), range(1, length(afters) + 1)) AS window
GROUP BY bucket${breakdownAlias}`;
  return { sql, params: scope.params.all };
}

/** Aggregate displays count the active users of the last 7 (30) days of the range, whatever date_from says. */
async function activeAggregateSql(query: SeriesQuery, windowDays: number) {
  const { series, range, breakdown } = query;
  const scope = await SeriesScope.create(series, activeUsersAggregateStart(range.to, windowDays), range.to);
  const breakdownKey = breakdown ? `${await breakdown.expression(scope)} AS breakdown_value, ` : '';
  const extra = breakdown ? breakdown.conditions(scope) : [];
  const sql = `SELECT ${breakdownKey}count(DISTINCT ${scope.source.personId}) AS value
${scope.fromWhere(extra)}
${breakdown ? 'GROUP BY breakdown_value' : ''}`;
  return { sql, params: scope.params.all };
}
