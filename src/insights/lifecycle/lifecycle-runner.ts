import type { SqlResolvers } from '../../query/resolvers.js';
import type { DateTime } from 'luxon';
import type { Project } from '../../projects/project.js';
import type { Warehouse } from '../../storage/warehouse/warehouse.js';
import { formatDay, truncate, type DateRangeInput, type Interval, type QueryDateRange } from '../../query/date-range.js';
import { combineAnd, type PropertyGroup } from '../../query/property-filter-model.js';
import type { ActorPage } from '../actors/actor-page.js';
import { actorPageSql, NEWEST_PERSON_FIRST } from '../actors/actor-page-sql.js';
import { projectClock, testAccountFilters } from '../actors/analysis-inputs.js';
import type { SeriesEntity } from '../filter-model.js';
import { UnknownAction, type SeriesDefinition } from '../trends/series-scope.js';
import { lifecycleActorRows, type LifecycleRows } from './lifecycle-actor-rows.js';
import type { LifecycleFilter, LifecycleStatus } from './lifecycle-filter.js';
import { projectDateRange } from './project-date-range.js';

/** A lifecycle: how many persons had each status in each period. */
export interface LifecycleResult {
  /** The series, named as the project names its action. */
  series: SeriesEntity;
  interval: Interval;
  /** Start of every period of the range, in the project timezone. */
  periods: DateTime[];
  /** Persons per status and period (index of `periods`); dormant counts are negative, as PostHog reports them. */
  counts: Record<LifecycleStatus, number[]>;
}

/** What a lifecycle query reads. */
export interface LifecycleTarget {
  project: Project;
  filter: LifecycleFilter;
  /** Filters on every event besides the filter's (the actors endpoint's search). */
  extraProperties?: PropertyGroup;
  /** Defaults to the current time; relative dates are resolved against it. */
  now?: DateTime;
}

/** One data point: a status in the period holding `at`. */
export interface LifecyclePoint {
  at: DateTime;
  status: LifecycleStatus;
}

/**
 * Runs legacy lifecycle: the per-actor rows of lifecycle-actor-rows.ts, counted
 * per period and status for the insight, or listed for one data point's actors (newest person
 * first), so a data point's count is always the number of its actors.
 */
export class LifecycleRunner {
  constructor(
    private readonly warehouse: Warehouse,
    private readonly resolvers: SqlResolvers,
  ) {}

  /** The lifecycle, or null when its series is an action the project does not have (PostHog answers no series). */
  async run(target: LifecycleTarget): Promise<LifecycleResult | null> {
    const { project, filter } = target;
    const clock = projectClock(project, target.now);
    // Bad dates are a 400 even for a series that has nothing to count.
    const range = await projectDateRange(this.warehouse, project, filter.dates, clock);
    const series = await this.named(target);
    if (!series) return null;
    const zeros = () => range.buckets.map(() => 0);
    const counts: Record<LifecycleStatus, number[]> = { new: zeros(), returning: zeros(), resurrecting: zeros(), dormant: zeros() };
    const [first] = range.buckets;
    const last = range.buckets.at(-1);
    // A range that ends before it starts has no period.
    if (!first || !last) return { series, interval: range.interval, periods: [], counts };
    const rows = await lifecycleActorRows({
      series: this.definition(target),
      interval: range.interval,
      weekStartDay: clock.weekStartDay,
      first,
      last,
      kept: range.buckets,
    });
    const counted = await this.warehouse.query<{ period: string; status: LifecycleStatus; actors: string }>(
      `SELECT period, status, count() AS actors FROM (${rows.sql}) GROUP BY period, status`,
      rows.params.all,
    );
    const index = new Map(range.buckets.map((bucket, position) => [formatDay(bucket, range.interval), position]));
    for (const row of counted) {
      const position = index.get(row.period);
      if (position !== undefined) counts[row.status][position] = (row.status === 'dormant' ? -1 : 1) * Number(row.actors);
    }
    return { series, interval: range.interval, periods: range.buckets, counts };
  }

  /** The range a lifecycle of these dates reads, resolved at `now`. */
  dateRange(project: Project, dates: DateRangeInput, now?: DateTime): Promise<QueryDateRange> {
    return projectDateRange(this.warehouse, project, dates, projectClock(project, now));
  }

  /** The UUIDs of one data point's persons: created last first, then the highest id first (or in the page's order, ties in that one). */
  async actorIds(target: LifecycleTarget, point: LifecyclePoint, page: ActorPage): Promise<string[]> {
    const { project, filter } = target;
    const clock = projectClock(project, target.now);
    const range = await projectDateRange(this.warehouse, project, filter.dates, clock);
    const period = truncate(point.at.setZone(clock.timezone), range.interval, clock.weekStartDay);
    const [first] = range.buckets;
    const last = range.buckets.at(-1);
    if (!first || !last) return [];
    let rows: LifecycleRows;
    try {
      rows = await lifecycleActorRows({
        series: this.definition(target),
        interval: range.interval,
        weekStartDay: clock.weekStartDay,
        first,
        last,
        kept: [period],
      });
    } catch (error) {
      if (error instanceof UnknownAction) return [];
      throw error;
    }
    const inStatus = `SELECT actor, person_id, created_at FROM (${rows.sql}) WHERE status = ${rows.params.add(point.status, 'String')}`;
    const found = await this.warehouse.query<{ actor_id: string }>(
      actorPageSql({ sql: inStatus, persons: 'carried', order: NEWEST_PERSON_FIRST }, page, rows.params),
      rows.params.all,
    );
    return found.map((row) => row.actor_id);
  }

  private definition({ project, filter, extraProperties }: LifecycleTarget): SeriesDefinition {
    return {
      teamId: project.id,
      timezone: project.timezone,
      entity: filter.series,
      properties: combineAnd(filter.properties, testAccountFilters(project, filter), filter.series.properties, extraProperties ?? combineAnd()),
      resolvers: this.resolvers,
    };
  }

  /** PostHog shows an action series under the action's current name. */
  private async named({ project, filter }: LifecycleTarget): Promise<SeriesEntity | null> {
    const { series } = filter;
    if (series.type !== 'actions') return series;
    const name = await this.resolvers.actions.actionName(Number(series.id), project.id);
    return name === null ? null : { ...series, name };
  }
}
