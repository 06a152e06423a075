import type { SqlResolvers } from '../../query/resolvers.js';
import type { DateTime } from 'luxon';
import type { PersonHydrator } from '../../persons/person-hydrator.js';
import type { Project } from '../../projects/project.js';
import type { Warehouse } from '../../storage/warehouse/warehouse.js';
import { textOf } from '../../util/text.js';
import { parseAnalysisFilter } from '../actors/analysis-filter.js';
import { emptyActorList, hydrateActors, type ActorList } from '../actors/actor-list.js';
import { actorSeries } from '../actors/actor-query.js';
import { readActorPage, type ActorPage } from '../actors/actor-page.js';
import { withSearch } from '../actors/actor-search.js';
import { projectClock } from '../actors/analysis-inputs.js';
import type { InsightFilter, RawInput, SeriesEntity } from '../filter-model.js';
import { combineAnd, type PropertyGroup } from '../../query/property-filter-model.js';
import { resolveDateRange, type ProjectClock } from '../../query/date-range.js';
import { BREAKDOWN_NULL, BREAKDOWN_OTHER, planBreakdown } from './breakdown.js';
import { UnknownAction, type SeriesDefinition } from './series-scope.js';
import { requireTargetEntity } from './trend-actors-entity.js';
import { dataPointRange, trendActorsSql, type DataPointRange } from './trend-actors.js';

/** A warehouse number (64-bit counts come as text), null when the math has no value. */
function numberOrNull(value: number | string | null): number | null {
  return value === null ? null : Number(value);
}

/** The persons of a data point, and the distinct ids each one's counted events carry (by person UUID). */
export interface DataPointActorList extends ActorList {
  eventDistinctIds: Map<string, string[]>;
}

/**
 * One trend data point: the series, the filter whose dates are the point's window (as its
 * persons URL gives them), the breakdown bucket, and filters on top of the trend's (a search).
 */
export interface TrendDataPoint {
  filter: InsightFilter;
  entity: SeriesEntity;
  /** The bucket to keep, as the trend names it; null keeps every event of the data point. */
  breakdownValue: string | null;
  extraProperties: PropertyGroup;
}

/**
 * `/persons/trends`: the persons behind one trend data point (entity, bucket, breakdown value),
 * each with its `value_at_data_point`.
 */
export class TrendActorsService {
  constructor(
    private readonly warehouse: Warehouse,
    private readonly hydrator: PersonHydrator,
    private readonly resolvers: SqlResolvers,
  ) {}

  async actors(project: Project, input: RawInput): Promise<ActorList> {
    const filter = parseAnalysisFilter(input);
    const entity = requireTargetEntity(filter, input);
    const breakdownValue = input.breakdown_value === undefined || input.breakdown_value === null ? null : textOf(input.breakdown_value);
    return this.dataPointActors(project, { filter, entity, breakdownValue, extraProperties: withSearch(combineAnd(), input) }, readActorPage(input));
  }

  /** The persons of a data point, highest value first, each with its `value_at_data_point`. */
  async dataPointActors(project: Project, point: TrendDataPoint, page: ActorPage, now?: DateTime): Promise<DataPointActorList> {
    const { filter, entity, breakdownValue } = point;
    const clock = projectClock(project, now);
    const range = dataPointRange(filter, clock);
    // The search reaches the series through the entity's own filters, ANDed like the rest.
    const searched = { ...entity, properties: combineAnd(entity.properties, point.extraProperties) };
    const series = actorSeries(project, filter, searched, {}, this.resolvers);
    let rows: Array<{ actor_id: string; value: number | string | null; distinct_ids: string[] }>;
    try {
      const topValues = breakdownValue === BREAKDOWN_OTHER ? await this.topValues(filter, series, range, clock) : [];
      const { sql, params } = await trendActorsSql({ series, range, breakdown: filter.breakdown, breakdownValue, topValues, page });
      rows = await this.warehouse.query(sql, params);
    } catch (error) {
      // As the trend itself, a series of an action the project does not have has no persons.
      if (error instanceof UnknownAction) return { ...emptyActorList(page), eventDistinctIds: new Map() };
      throw error;
    }
    const values = new Map(rows.map((row) => [row.actor_id, numberOrNull(row.value)]));
    const list = await hydrateActors(
      this.hydrator,
      project,
      rows.map((row) => row.actor_id),
      page,
    );
    return {
      ...list,
      people: list.people.map((person) => ({ ...person, value_at_data_point: values.get(person.uuid) ?? null })),
      eventDistinctIds: new Map(rows.map((row) => [row.actor_id, row.distinct_ids])),
    };
  }

  /**
   * The named buckets of a property breakdown, chosen as the trend chooses them; PostHog's persons
   * URL only carries the data point's dates, so they are ranked over those.
   */
  private async topValues(filter: InsightFilter, series: SeriesDefinition, range: DataPointRange, clock: ProjectClock): Promise<string[]> {
    if (!filter.breakdown || filter.breakdown.type === 'cohort') return [];
    const rangeOfPoint = { ...resolveDateRange(filter.dates, clock), from: range.from, to: range.to };
    const plan = await planBreakdown(filter.breakdown, series, rangeOfPoint, 0, this.warehouse);
    return (plan?.values ?? []).filter((value) => value !== BREAKDOWN_OTHER).map((value) => (value === BREAKDOWN_NULL ? '' : String(value)));
  }
}
