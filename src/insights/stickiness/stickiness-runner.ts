import type { SqlResolvers } from '../../query/resolvers.js';
import type { DateTime } from 'luxon';
import { DAY_MS } from '../../util/time.js';
import type { Project } from '../../projects/project.js';
import type { Warehouse } from '../../storage/warehouse/warehouse.js';
import type { DateRangeInput, Interval, QueryDateRange } from '../../query/date-range.js';
import { combineAnd, type PropertyGroup } from '../../query/property-filter-model.js';
import type { ActorPage } from '../actors/actor-page.js';
import { actorPageSql, NEWEST_PERSON_FIRST } from '../actors/actor-page-sql.js';
import { projectClock, testAccountFilters } from '../actors/analysis-inputs.js';
import type { SeriesEntity } from '../filter-model.js';
import { projectDateRange } from '../lifecycle/project-date-range.js';
import { UnknownAction, type SeriesDefinition } from '../trends/series-scope.js';
import { stickinessActorRows, type StickinessRows } from './stickiness-actor-rows.js';
import type { StickinessFilter, StickinessOperator } from './stickiness-filter.js';

/** One series of a stickiness: how many persons did its event in exactly k intervals. */
export interface StickinessSeries {
  /** The series, named as the project names its action. */
  entity: SeriesEntity;
  /** Index k − 1 holds the persons active in exactly k intervals, for k = 1 … `intervals`. */
  counts: number[];
}

export interface StickinessResult {
  interval: Interval;
  /** How many intervals the range has room for (the last data point). */
  intervals: number;
  series: StickinessSeries[];
}

/** What a stickiness query reads. */
export interface StickinessTarget {
  project: Project;
  filter: StickinessFilter;
  /** Filters on every event besides the filter's (the actors endpoint's search). */
  extraProperties?: PropertyGroup;
  /** Defaults to the current time; relative dates are resolved against it. */
  now?: DateTime;
}

/** Milliseconds between two times of one zone on the wall clock, as Python subtracts aware datetimes. */
function wallClockMillis(from: DateTime, to: DateTime): number {
  return to.setZone('UTC', { keepLocalTime: true }).toMillis() - from.setZone('UTC', { keepLocalTime: true }).toMillis();
}

/**
 * The number of data points: PostHog's `total_intervals − 1`, whole intervals between the
 * range's bounds plus one. Months count calendar months across years (PostHog's own count
 * forgets the years and goes negative across a new year).
 */
export function stickinessIntervals(range: Pick<QueryDateRange, 'from' | 'to' | 'interval'>): number {
  const { from, to, interval } = range;
  const days = Math.floor(wallClockMillis(from, to) / DAY_MS);
  switch (interval) {
    case 'hour':
      return Math.floor(wallClockMillis(from, to) / 3_600_000) + 1;
    case 'day':
      return days + 1;
    case 'week':
      return Math.floor(days / 7) + 1;
    case 'month':
      return (to.year - from.year) * 12 + (to.month - from.month) + 1;
  }
}

/**
 * One data point's actors: those active in exactly `intervals` intervals, or (as cumulative
 * stickiness counts them) in that many or more, or in at most that many.
 */
export interface StickinessPoint {
  intervals: number;
  operator: StickinessOperator;
}

/** The least and most intervals of a data point's actors, the range having `last` data points: the data points the operator takes together. */
function intervalBounds({ intervals, operator }: StickinessPoint, last: number): [number, number] {
  switch (operator) {
    case 'exact':
      return [intervals, intervals];
    case 'gte':
      return [intervals, last];
    case 'lte':
      return [1, Math.min(intervals, last)];
  }
}

/**
 * Runs legacy stickiness: the per-actor rows of stickiness-actor-rows.ts,
 * counted per number of active intervals for the insight, or listed for one data point's actors
 * (newest person first), so a data point's count is always the number of its actors.
 */
export class StickinessRunner {
  constructor(
    private readonly warehouse: Warehouse,
    private readonly resolvers: SqlResolvers,
  ) {}

  /** The stickiness of every series, or null when a series is an action the project does not have (PostHog answers none). */
  async run(target: StickinessTarget): Promise<StickinessResult | null> {
    const { project, filter } = target;
    const clock = projectClock(project, target.now);
    const range = await projectDateRange(this.warehouse, project, filter.dates, clock);
    const intervals = Math.max(stickinessIntervals(range), 0);
    const series: StickinessSeries[] = [];
    for (const entity of filter.series) {
      const named = await this.named(project, entity);
      if (!named) return null;
      const rows = await this.rows(target, entity, range);
      const counted = await this.warehouse.query<{ intervals: string; actors: string }>(
        `SELECT intervals, count() AS actors FROM (${rows.sql}) GROUP BY intervals`,
        rows.params.all,
      );
      const counts = Array.from({ length: intervals }, () => 0);
      for (const row of counted) {
        const k = Number(row.intervals);
        if (k >= 1 && k <= intervals) counts[k - 1] = Number(row.actors);
      }
      series.push({ entity: named, counts });
    }
    return { interval: range.interval, intervals, series };
  }

  /** The range a stickiness of these dates reads, resolved at `now`. */
  dateRange(project: Project, dates: DateRangeInput, now?: DateTime): Promise<QueryDateRange> {
    return projectDateRange(this.warehouse, project, dates, projectClock(project, now));
  }

  /**
   * The UUIDs of the persons of one data point: created last first, then the highest id first (or
   * in the page's order, ties in that one). One query whatever the operator, so a page of the
   * actors of "N or more" intervals reads no more than a page.
   */
  async actorIds(target: StickinessTarget, entity: SeriesEntity, point: StickinessPoint, page: ActorPage): Promise<string[]> {
    const { project, filter } = target;
    const range = await projectDateRange(this.warehouse, project, filter.dates, projectClock(project, target.now));
    let rows: StickinessRows;
    try {
      rows = await this.rows(target, entity, range);
    } catch (error) {
      if (error instanceof UnknownAction) return [];
      throw error;
    }
    const [least, most] = intervalBounds(point, Math.max(stickinessIntervals(range), 0));
    const { params } = rows;
    const pointActors = `SELECT actor FROM (${rows.sql}) WHERE intervals BETWEEN ${params.add(least, 'UInt64')} AND ${params.add(most, 'UInt64')}`;
    const found = await this.warehouse.query<{ actor_id: string }>(
      actorPageSql({ sql: pointActors, persons: 'joined', order: NEWEST_PERSON_FIRST }, page, params),
      params.all,
    );
    return found.map((row) => row.actor_id);
  }

  /** Events are read over the range rounded to whole intervals, as the trend reads them. */
  private rows({ project, filter, extraProperties }: StickinessTarget, entity: SeriesEntity, range: QueryDateRange): Promise<StickinessRows> {
    const series: SeriesDefinition = {
      teamId: project.id,
      timezone: project.timezone,
      entity,
      properties: combineAnd(filter.properties, testAccountFilters(project, filter), entity.properties, extraProperties ?? combineAnd()),
      resolvers: this.resolvers,
    };
    return stickinessActorRows({
      series,
      interval: range.interval,
      weekStartDay: range.weekStartDay,
      from: range.roundedFrom,
      to: range.to,
      criteria: filter.criteria,
    });
  }

  private async named(project: Project, entity: SeriesEntity): Promise<SeriesEntity | null> {
    if (entity.type !== 'actions') return entity;
    const name = await this.resolvers.actions.actionName(Number(entity.id), project.id);
    return name === null ? null : { ...entity, name };
  }
}
