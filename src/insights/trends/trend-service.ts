import type { SqlResolvers } from '../../query/resolvers.js';
import { DateTime } from 'luxon';
import type { Project } from '../../projects/project.js';
import type { Warehouse } from '../../storage/warehouse/warehouse.js';
import {
  aggregateDays,
  filterDates,
  needsEarliestEvent,
  previousPeriod,
  resolveDateRange,
  type DateRangeInput,
  type ProjectClock,
} from '../../query/date-range.js';
import { effectiveBreakdown, isTimeSeries, CUMULATIVE_DISPLAY, type Breakdown, type InsightFilter, type SeriesEntity } from '../filter-model.js';
import { combineAnd, parseProperties } from '../../query/property-filter-model.js';
import { noActions, noCohorts } from '../../query/resolvers.js';
import { planBreakdown, ALL_USERS_COHORT, type BreakdownBuckets } from './breakdown.js';
import { queryRankedBreakdown, ranksInSeriesQuery } from './ranked-breakdown.js';
import { formulaItems } from './formula-series.js';
import { querySeriesTogether, sharesScan } from './shared-scan.js';
import { countableByHour, queryHourlyCounts } from './hourly-event-counts.js';
import { querySeries, type SeriesQueryWithoutBreakdown, type SeriesRow } from './series-query.js';
import { UnknownAction } from './series-scope.js';
import { aggregateItems, markComparison, timeSeriesItems, type SeriesItem, type ShapeContext } from './trend-series.js';
import { parseFormula } from './formula.js';
import { compareToPeriod } from './compare-to-period.js';
import { projectClock } from '../actors/analysis-inputs.js';

/** Where a period's items come from: the series of each entity, before any formula. */
export interface EntityResult {
  entity: SeriesEntity;
  items: SeriesItem[];
}

export interface TrendOptions {
  /** Defaults to the current time; tests pin it. */
  now?: DateTime;
  /** With `compare`: the compared period starts this far before the current one (`-1w`, a date), instead of being the previous period. */
  compareTo?: string | null;
}

/**
 * Runs the legacy trend insight: one aggregate warehouse query per series and period (property
 * breakdowns of total and dau rank their values in it; other breakdowns first query their
 * values; plain series without a breakdown share one scan), then shapes PostHog's response
 * items. Compare runs everything again for the previous period; formulas combine the series of
 * a period.
 */
export class TrendService {
  constructor(
    private readonly warehouse: Warehouse,
    private readonly resolvers: SqlResolvers = { cohorts: noCohorts, actions: noActions },
  ) {}

  async run(project: Project, filter: InsightFilter, options: TrendOptions = {}): Promise<SeriesItem[]> {
    const clock = projectClock(project, options.now);
    // Bad dates are a 400 even when there is nothing to count.
    filterDates(filter.dates, clock);
    if (filter.entities.length === 0) return [];
    const formula = filter.formula === null ? null : parseFormula(filter.formula, filter.entities.length);
    let entities: SeriesEntity[];
    try {
      entities = await this.withActionNames(project, filter.entities);
    } catch (error) {
      if (error instanceof UnknownAction) return [];
      throw error;
    }
    const named: InsightFilter = { ...filter, entities };
    const cohortNames = await this.cohortNames(project, named);

    const runPeriod = (dates: DateRangeInput) => this.runPeriod(project, named, dates, clock, { cohortNames, accumulate: formula === null });
    const comparedDates = () => this.comparedPeriod(project, named.dates, clock, options.compareTo ?? null);
    if (formula) {
      const current = await runPeriod(named.dates);
      const currentItems = formulaItems(formula, named, current.results, cohortNames);
      if (!named.compare) return currentItems;
      const previous = await runPeriod(await comparedDates());
      return [
        ...markComparison(currentItems, named.dates.interval, 'current'),
        ...markComparison(formulaItems(formula, named, previous.results, cohortNames), named.dates.interval, 'previous'),
      ];
    }
    const current = await runPeriod(named.dates);
    if (!named.compare) return current.results.flatMap((result) => result.items);
    const previous = await runPeriod(await comparedDates());
    return current.results.flatMap((result, index) => [
      ...markComparison(result.items, named.dates.interval, 'current'),
      ...markComparison(previous.results[index]?.items ?? [], named.dates.interval, 'previous'),
    ]);
  }

  /** The period `compare` runs beside the current one: the previous period, or the one `compare_to` moves to. */
  private async comparedPeriod(project: Project, dates: DateRangeInput, clock: ProjectClock, compareTo: string | null): Promise<DateRangeInput> {
    if (compareTo === null) return previousPeriod(dates, clock);
    const earliest = needsEarliestEvent(dates) ? await this.earliestEvent(project) : null;
    return compareToPeriod(dates, compareTo, resolveDateRange(dates, clock, earliest));
  }

  /** PostHog shows an action series under the action's current name; an unknown action empties the result. */
  private async withActionNames(project: Project, entities: SeriesEntity[]): Promise<SeriesEntity[]> {
    const named: SeriesEntity[] = [];
    for (const entity of entities) {
      if (entity.type !== 'actions') {
        named.push(entity);
        continue;
      }
      const name = await this.resolvers.actions.actionName(Number(entity.id), project.id);
      if (name === null) throw new UnknownAction(Number(entity.id));
      named.push({ ...entity, name });
    }
    return named;
  }

  private async cohortNames(project: Project, filter: InsightFilter): Promise<Map<number, string>> {
    const names = new Map<number, string>();
    const breakdown = effectiveBreakdown(filter);
    if (breakdown?.type !== 'cohort') return names;
    for (const cohort of breakdown.cohorts) {
      if (cohort !== 'all' && cohort !== ALL_USERS_COHORT) names.set(cohort, await this.resolvers.cohorts.cohortName(cohort, project.id));
    }
    return names;
  }

  private async earliestEvent(project: Project): Promise<DateTime | null> {
    const [row] = await this.warehouse.query<{ earliest: string | null }>(
      `SELECT if(count() = 0, NULL, toString(min(timestamp))) AS earliest FROM events
       WHERE team_id = {team_id:Int64} AND timestamp >= toDateTime64('2015-01-01 00:00:00', 6, 'UTC')`,
      { team_id: project.id },
    );
    return row?.earliest ? DateTime.fromSQL(row.earliest, { zone: 'UTC' }) : null;
  }

  /** The aggregated rows of one series and its breakdown buckets (null when a breakdown finds no value). */
  private async seriesRows(
    query: SeriesQueryWithoutBreakdown,
    breakdown: Breakdown | null,
    offset: number,
  ): Promise<{ plan: BreakdownBuckets | null; rows: SeriesRow[] }> {
    if (!breakdown) return { plan: null, rows: await querySeries({ ...query, breakdown: null }, this.warehouse) };
    if (ranksInSeriesQuery(breakdown, query)) return queryRankedBreakdown(query, breakdown, offset, this.warehouse);
    const plan = await planBreakdown(breakdown, query.series, query.range, offset, this.warehouse);
    if (!plan) return { plan: null, rows: [] };
    return { plan, rows: await querySeries({ ...query, breakdown: plan }, this.warehouse) };
  }

  /**
   * The rows of the series answered together without a breakdown: those hourly counts give (all
   * in one query), then those that can share one scan, when at least two of them are left.
   */
  private async rowsTogether(queries: SeriesQueryWithoutBreakdown[]): Promise<Map<SeriesQueryWithoutBreakdown, SeriesRow[]>> {
    const together = new Map<SeriesQueryWithoutBreakdown, SeriesRow[]>();
    const hourly = queries.filter(countableByHour);
    const hourlyRows = await queryHourlyCounts(hourly, this.warehouse);
    for (const [index, query] of hourly.entries()) together.set(query, hourlyRows[index]!);
    const sharing = queries.filter((query) => !together.has(query) && sharesScan(query));
    if (sharing.length < 2) return together;
    const sharedRows = await querySeriesTogether(sharing, this.warehouse);
    for (const [index, query] of sharing.entries()) together.set(query, sharedRows[index]!);
    return together;
  }

  private async runPeriod(
    project: Project,
    filter: InsightFilter,
    dates: DateRangeInput,
    clock: ProjectClock,
    shaping: Pick<ShapeContext, 'cohortNames' | 'accumulate'>,
  ): Promise<{ results: EntityResult[] }> {
    const earliest = needsEarliestEvent(dates) ? await this.earliestEvent(project) : null;
    const range = resolveDateRange(dates, clock, earliest);
    const timeSeries = isTimeSeries(filter);
    const context: ShapeContext = {
      projectId: project.id,
      filter,
      dates,
      range,
      aggregateDays: timeSeries ? [] : aggregateDays(dates, clock),
      filterDateFrom: filterDates(dates, clock).from,
      ...shaping,
    };
    const testAccounts = filter.filterTestAccounts ? parseProperties(project.testAccountFilters) : combineAnd();
    const breakdown = effectiveBreakdown(filter);
    const queries = filter.entities.map((entity) => ({
      series: {
        teamId: project.id,
        timezone: project.timezone,
        entity,
        properties: combineAnd(filter.properties, testAccounts, entity.properties),
        resolvers: this.resolvers,
      },
      range,
      timeSeries,
      firstSeenOnly: filter.display === CUMULATIVE_DISPLAY,
    }));
    const sharedRows = breakdown ? new Map<SeriesQueryWithoutBreakdown, SeriesRow[]>() : await this.rowsTogether(queries);
    const results: EntityResult[] = [];
    for (const query of queries) {
      const { entity } = query.series;
      const shared = sharedRows.get(query);
      const { plan, rows } = shared ? { plan: null, rows: shared } : await this.seriesRows(query, breakdown, filter.offset);
      if (breakdown && !plan) {
        results.push({ entity, items: [] });
        continue;
      }
      const items = timeSeries ? timeSeriesItems(entity, rows, plan, context) : aggregateItems(entity, rows, plan, context);
      results.push({ entity, items });
    }
    return { results };
  }
}
