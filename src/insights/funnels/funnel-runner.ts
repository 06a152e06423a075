import type { SqlResolvers } from '../../query/resolvers.js';
import { DateTime } from 'luxon';
import { ValidationError } from '../../errors.js';
import type { Project } from '../../projects/project.js';
import { formatDay, resolveDateRange } from '../../query/date-range.js';
import type { SqlParams } from '../../query/sql-params.js';
import { combineAnd, type PropertyGroup } from '../../query/property-filter-model.js';
import type { Warehouse } from '../../storage/warehouse/warehouse.js';
import type { ActorPage } from '../actors/actor-page.js';
import { analysisWindow, projectClock, testAccountFilters } from '../actors/analysis-inputs.js';
import { EventScope, type EventScopeDefinition } from '../actors/event-scope.js';
import type { SeriesEntity } from '../filter-model.js';
import { newestPersonsFirst } from './actor-order-sql.js';
import { ALL_USERS_COHORT } from './funnel-breakdown.js';
import { funnelBuckets } from './funnel-breakdown-values.js';
import type { FunnelFilter } from './funnel-filter.js';
import type {
  FunnelBucket,
  FunnelResult,
  FunnelStepsResult,
  FunnelStepsSeries,
  FunnelTimeToConvertResult,
  FunnelTrendsResult,
  FunnelTrendsSeries,
} from './funnel-results.js';
import { funnelPerActorSql, OTHER_BUCKET, rankedBreakdownLimit, type FunnelBuckets, type FunnelSqlOptions } from './funnel-steps-sql.js';
import { histogramBins, histogramPlan, histogramSql } from './funnel-time-bins.js';

/** Which actors of a funnel: reached a step or further, dropped off before one, exact furthest steps, or a range of them. */
export type FunnelStepSelection =
  | { kind: 'reached'; step: number }
  | { kind: 'dropped'; before: number }
  | { kind: 'exactly'; steps: number[] }
  | { kind: 'between'; min: number; max: number };

export interface FunnelActorsRequest {
  selection: FunnelStepSelection;
  /** The breakdown bucket (`funnel_step_breakdown`), null for every actor of the funnel. */
  breakdownValue: string[] | null;
  /** Funnel trends: the entrance period (its `days` key). */
  period: string | null;
  page: ActorPage;
  /** Extra filters of the actors endpoint (its `search`), ANDed with the funnel's. */
  properties?: PropertyGroup;
}

export interface FunnelRunOptions {
  /** Defaults to the current time; tests pin it. */
  now?: DateTime;
}

/** The per-actor SQL of a funnel and the scope whose parameters it binds. */
export interface FunnelPerActor {
  sql: string;
  scope: EventScope;
}

/** ClickHouse may answer 64-bit integers as strings. */
function numberOf(value: unknown): number {
  return Number(value);
}

function nullableNumber(value: unknown): number | null {
  if (value === null || value === undefined) return null;
  const number = Number(value);
  return Number.isFinite(number) ? number : null;
}

/**
 * THE funnel runner: steps, trends and time to convert of ordered, strict and
 * unordered funnels, and the actors behind any of their numbers, all from one per-actor query
 * (funnel-steps-sql.ts). Results are typed; surfaces shape them.
 */
export class FunnelRunner {
  constructor(
    private readonly warehouse: Warehouse,
    private readonly resolvers: SqlResolvers,
  ) {}

  /** Where the funnel's events come from: the project's events of the date range (default the last 7 days) that pass its filters. */
  scopeOf(project: Project, filter: FunnelFilter, now: DateTime = DateTime.now(), extra?: PropertyGroup): Omit<EventScopeDefinition, 'params'> {
    const { from, to } = analysisWindow(filter.dates, projectClock(project, now));
    const properties = combineAnd(filter.properties, testAccountFilters(project, filter), ...(extra ? [extra] : []));
    return { teamId: project.id, timezone: project.timezone, from, to, properties, resolvers: this.resolvers };
  }

  /** The per-actor rows of the funnel (see funnelPerActorSql), without breakdown unless buckets are given. */
  async perActor(scope: Omit<EventScopeDefinition, 'params'>, filter: FunnelFilter, options: FunnelSqlOptions = {}): Promise<FunnelPerActor> {
    const events = await EventScope.create(scope);
    return { sql: await funnelPerActorSql(filter, events, options), scope: events };
  }

  async run(project: Project, filter: FunnelFilter, options: FunnelRunOptions = {}): Promise<FunnelResult> {
    const now = options.now ?? DateTime.now();
    const named = { ...filter, steps: await this.withActionNames(project, filter.steps) };
    switch (named.vizType) {
      case 'steps':
        return this.steps(project, named, now);
      case 'trends':
        return this.trends(project, named, now);
      case 'time_to_convert':
        return this.timeToConvert(project, named, now);
    }
  }

  /** The actor ids (person UUIDs) of one funnel data point, newest person first. */
  async actorIds(project: Project, filter: FunnelFilter, request: FunnelActorsRequest, now: DateTime = DateTime.now()): Promise<string[]> {
    if (filter.aggregationGroupTypeIndex !== null) {
      throw new ValidationError('aggregation_group_type_index', 'Funnel persons are persons: groups cannot be listed here.');
    }
    const scope = this.scopeOf(project, filter, now, request.properties);
    const buckets = request.breakdownValue !== null && filter.breakdown ? await funnelBuckets(filter, scope, this.warehouse) : null;
    const clock = projectClock(project, now);
    const periods = request.period === null ? null : { interval: filter.dates.interval, weekStartDay: clock.weekStartDay };
    const { sql, scope: events } = await this.perActor(scope, filter, { buckets, breakdownValue: buckets ? request.breakdownValue : null, periods });
    const { params } = events;
    const conditions = ['funnel.steps >= 1', selectionCondition(request.selection, (value, type) => params.add(value, type))];
    if (request.period !== null) conditions.push(`funnel.period = ${params.add(request.period, 'String')}`);
    const rows = await this.warehouse.query<{ actor_id: string }>(
      newestPersonsFirst(`SELECT funnel.actor AS actor FROM (${sql}) AS funnel WHERE ${conditions.join(' AND ')}`, request.page, params),
      params.all,
    );
    return rows.map((row) => row.actor_id);
  }

  /** PostHog shows an action step under the action's current name; an unknown action is a 400. */
  private async withActionNames(project: Project, steps: SeriesEntity[]): Promise<SeriesEntity[]> {
    const named: SeriesEntity[] = [];
    for (const step of steps) {
      if (step.type !== 'actions') {
        named.push(step);
        continue;
      }
      const name = await this.resolvers.actions.actionName(Number(step.id), project.id);
      if (name === null) throw new ValidationError('actions', `Action ${step.id} does not exist.`);
      named.push({ ...step, name });
    }
    return named;
  }

  private async steps(project: Project, filter: FunnelFilter, now: DateTime): Promise<FunnelStepsResult> {
    const scope = this.scopeOf(project, filter, now);
    // A touch-attributed property breakdown ranks its values in the same query.
    const rankLimit = rankedBreakdownLimit(filter);
    const ranked = rankLimit !== null;
    const buckets = ranked ? null : await funnelBuckets(filter, scope, this.warehouse);
    const { sql, scope: events } = await this.perActor(scope, filter, { buckets, rankedValues: ranked });
    const count = filter.steps.length;
    const { params } = events;
    const rows = await this.warehouse.query<{ bucket: string[]; counts: unknown[]; averages: unknown[]; medians: unknown[]; rank: unknown }>(
      ranked ? rankedStepsSql(sql, count, rankLimit, params) : stepsSql(sql, count),
      params.all,
    );
    const broken = ranked || buckets !== null;
    const seriesOf = async (row: (typeof rows)[number] | null): Promise<FunnelStepsSeries> => ({
      bucket: row && broken ? await this.bucketOf(project, filter, row.bucket) : null,
      steps: filter.steps.map((entity, index) => ({
        entity,
        index,
        count: row ? numberOf(row.counts[index]) : 0,
        averageConversionTime: row && index > 0 ? nullableNumber(row.averages[index - 1]) : null,
        medianConversionTime: row && index > 0 ? nullableNumber(row.medians[index - 1]) : null,
      })),
    });
    if (!broken) return { kind: 'steps', orderType: filter.orderType, series: [await seriesOf(rows[0] ?? null)] };
    const rank = buckets ? bucketRank(buckets) : (key: string[]) => numberOf(rows.find((row) => sameKey(row.bucket, key))?.rank);
    const ordered = [...rows].sort((a, b) => {
      for (let index = count - 1; index >= 0; index -= 1) {
        const difference = numberOf(b.counts[index]) - numberOf(a.counts[index]);
        if (difference !== 0) return difference;
      }
      return rank(a.bucket) - rank(b.bucket);
    });
    const series: FunnelStepsSeries[] = [];
    for (const row of ordered) series.push(await seriesOf(row));
    return { kind: 'steps', orderType: filter.orderType, series };
  }

  private async trends(project: Project, filter: FunnelFilter, now: DateTime): Promise<FunnelTrendsResult> {
    const clock = projectClock(project, now);
    const interval = filter.dates.interval;
    const earliest = filter.dates.dateFrom === 'all' ? await this.earliestEvent(project) : null;
    const axis = resolveDateRange(filter.dates, clock, earliest).buckets;
    const scope = this.scopeOf(project, filter, now);
    const buckets = await funnelBuckets(filter, scope, this.warehouse);
    const { sql, scope: events } = await this.perActor(scope, filter, { buckets, periods: { interval, weekStartDay: clock.weekStartDay } });
    const { params } = events;
    const rows = await this.warehouse.query<{ bucket: string[]; period: string; reached_from: unknown; reached_to: unknown }>(
      `SELECT bucket, period, countIf(steps >= ${params.add(filter.fromStep + 1, 'UInt64')}) AS reached_from,
  countIf(steps >= ${params.add(filter.toStep + 1, 'UInt64')}) AS reached_to
FROM (${sql})
GROUP BY bucket, period`,
      params.all,
    );
    const seriesOf = async (key: string[]): Promise<FunnelTrendsSeries> => {
      const byPeriod = new Map(rows.filter((row) => sameKey(row.bucket, key)).map((row) => [row.period, row]));
      return {
        bucket: buckets ? await this.bucketOf(project, filter, key) : null,
        points: axis.map((periodStart) => {
          const row = byPeriod.get(formatDay(periodStart, interval));
          const reachedFrom = row ? numberOf(row.reached_from) : 0;
          const reachedTo = row ? numberOf(row.reached_to) : 0;
          return { periodStart, reachedFrom, reachedTo, conversionRate: reachedFrom > 0 ? Math.round((reachedTo / reachedFrom) * 10_000) / 100 : 0 };
        }),
      };
    };
    if (!buckets) return { kind: 'trends', interval, series: [await seriesOf([])] };
    // As PostHog's legacy funnel trends: one series per top value (no Other), by value.
    const keys = buckets.kind === 'cohorts' ? buckets.cohorts.map((cohort) => [String(cohort)]) : buckets.top;
    const series: FunnelTrendsSeries[] = [];
    for (const key of keys) series.push(await seriesOf(key));
    return { kind: 'trends', interval, series: series.sort((a, b) => compareText(bucketLabel(a.bucket), bucketLabel(b.bucket))) };
  }

  private async timeToConvert(project: Project, filter: FunnelFilter, now: DateTime): Promise<FunnelTimeToConvertResult> {
    const { sql, scope: events } = await this.perActor(this.scopeOf(project, filter, now), filter);
    const { params } = events;
    const from = params.add(filter.fromStep + 1, 'UInt64');
    const length = params.add(filter.toStep - filter.fromStep, 'UInt64');
    // An actor's sample: their conversion times from the from step to the to step, added up (all
    // known: the actor reached the to step).
    const samples = `SELECT arraySum(time -> assumeNotNull(time), arraySlice(avg_times, ${from}, ${length})) AS sample
FROM (${sql})
WHERE steps >= ${params.add(filter.toStep + 1, 'UInt64')}`;
    const [stats] = await this.warehouse.query<{ samples: unknown; shortest: unknown; longest: unknown; average: unknown; actors: unknown[] }>(
      histogramSql(samples, filter.binCount, (value, type) => params.add(value, type)),
      params.all,
    );
    const sampleCount = numberOf(stats?.samples ?? 0);
    if (!stats || sampleCount === 0) return { kind: 'time_to_convert', bins: [], averageConversionTime: null };
    const plan = histogramPlan({ samples: sampleCount, shortest: numberOf(stats.shortest), longest: numberOf(stats.longest) }, filter.binCount);
    const actorsPerBin = new Map(stats.actors.map((actors, bin) => [bin, numberOf(actors)]));
    return {
      kind: 'time_to_convert',
      bins: histogramBins(plan, actorsPerBin),
      averageConversionTime: Math.round(numberOf(stats.average) * 100) / 100,
    };
  }

  private async earliestEvent(project: Project): Promise<DateTime | null> {
    const [row] = await this.warehouse.query<{ earliest: string | null }>(
      `SELECT if(count() = 0, NULL, toString(min(timestamp))) AS earliest FROM events
       WHERE team_id = {team_id:Int64} AND timestamp >= toDateTime64('2015-01-01 00:00:00', 6, 'UTC')`,
      { team_id: project.id },
    );
    return row?.earliest ? DateTime.fromSQL(row.earliest, { zone: 'UTC' }) : null;
  }

  private async bucketOf(project: Project, filter: FunnelFilter, key: string[]): Promise<FunnelBucket> {
    const breakdown = filter.breakdown!;
    if (breakdown.type === 'cohort') {
      const cohortId = Number(key[0]);
      const name = cohortId === ALL_USERS_COHORT ? 'all users' : await this.resolvers.cohorts.cohortName(cohortId, project.id);
      return { kind: 'cohort', key, cohortId, name };
    }
    if (breakdown.type === 'group') return { kind: 'group', key, value: key[0] ?? '' };
    return { kind: 'values', key, values: key };
  }
}

/**
 * Per bucket: its actors at each step and their conversion times' averages and medians. The
 * medians are exact, interpolated as ClickHouse's sampled `median` is below 8,192 values, so a
 * funnel answers the same median every time however many actors it has.
 */
function stepsSql(perActor: string, steps: number): string {
  return `SELECT bucket, sumForEach(arrayMap(k -> toUInt64(steps >= k), range(1, ${steps + 1}))) AS counts,
  avgForEach(avg_times) AS averages, quantileExactInclusiveForEach(0.5)(median_times) AS medians
FROM (${perActor})
WHERE steps >= 1
GROUP BY bucket`;
}

/**
 * stepsSql of rows made with `rankedValues`, ranking the values as funnelBuckets does in the
 * same query: by their number of step events (ties: the greater value first), the first
 * `limit` kept and any other `Other`. `rank` orders buckets of equal counts as bucketRank does.
 */
function rankedStepsSql(perActor: string, steps: number, limit: number, params: SqlParams): string {
  return `SELECT bucket, sumForEach(arrayMap(k -> toUInt64(actor.1 >= k), range(1, ${steps + 1}))) AS counts,
  avgForEach(actor.2) AS averages, quantileExactInclusiveForEach(0.5)(actor.3) AS medians, min(rank) AS rank
FROM (
  SELECT if(rank <= ${params.add(limit, 'UInt64')}, value, [${params.add(OTHER_BUCKET, 'String')}]) AS bucket, actors, rank
  FROM (
    SELECT value, actors, row_number() OVER (ORDER BY events DESC, value DESC) AS rank
    FROM (
      SELECT entry.1 AS value, countIf(NOT entry.2) AS events, groupArrayIf((steps, avg_times, median_times), entry.2 AND steps >= 1) AS actors
      FROM (${perActor})
      ARRAY JOIN arrayPushFront(arrayMap(v -> (v, false), bucket.2), (bucket.1, true)) AS entry
      GROUP BY value
    )
  )
)
ARRAY JOIN actors AS actor
GROUP BY bucket`;
}

function sameKey(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((value, index) => value === b[index]);
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function bucketLabel(bucket: FunnelBucket | null): string {
  if (!bucket) return '';
  if (bucket.kind === 'cohort') return bucket.name;
  return JSON.stringify(bucket.kind === 'group' ? bucket.value : bucket.values);
}

/** Ties of equal step counts keep the order of the breakdown values (Other last), or of the cohorts asked for. */
function bucketRank(buckets: FunnelBuckets): (key: string[]) => number {
  const keys = buckets.kind === 'cohorts' ? buckets.cohorts.map((cohort) => [String(cohort)]) : buckets.top;
  return (key) => {
    const index = keys.findIndex((candidate) => sameKey(candidate, key));
    return index >= 0 ? index : key.length === 1 && key[0] === OTHER_BUCKET ? keys.length : keys.length + 1;
  };
}

/** The condition on the per-actor `funnel.steps` of a selection. */
export function selectionCondition(selection: FunnelStepSelection, bind: (value: unknown, type: string) => string): string {
  switch (selection.kind) {
    case 'reached':
      return `funnel.steps >= ${bind(selection.step, 'UInt64')}`;
    case 'dropped':
      return `funnel.steps = ${bind(selection.before - 1, 'UInt64')}`;
    case 'exactly':
      return `funnel.steps IN ${bind(selection.steps, 'Array(UInt64)')}`;
    case 'between':
      return `funnel.steps BETWEEN ${bind(selection.min, 'UInt64')} AND ${bind(selection.max, 'UInt64')}`;
  }
}
