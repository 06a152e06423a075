import type { PersonHydrator } from '../../persons/person-hydration.js';
import type { Project } from '../../projects/project.js';
import type { Warehouse } from '../../storage/warehouse/warehouse.js';
import { parseAnalysisFilter, targetEntity } from '../actors/analysis-filter.js';
import { emptyActorList, hydrateActors, type ActorList } from '../actors/actor-list.js';
import { readActorPage } from '../actors/actor-page.js';
import { withSearch } from '../actors/actor-search.js';
import { projectClock, testAccountFilters } from '../actors/analysis-inputs.js';
import { combineAnd, type InsightFilter, type RawInput } from '../filter-model.js';
import { resolveDateRange, type ProjectClock } from '../date-range.js';
import { BREAKDOWN_NULL, BREAKDOWN_OTHER, planBreakdown } from './breakdown.js';
import { UnknownAction, type InsightResolvers, type SeriesDefinition } from './series-scope.js';
import { dataPointRange, trendActorsSql, type DataPointRange } from './trend-actors.js';

/** `GET /persons/trends`: the persons behind one trend data point (entity, bucket, breakdown value). */
export class TrendActorsService {
  constructor(
    private readonly warehouse: Warehouse,
    private readonly hydrator: PersonHydrator,
    private readonly resolvers: InsightResolvers,
  ) {}

  async actors(project: Project, input: RawInput): Promise<ActorList> {
    const filter = parseAnalysisFilter(input);
    const entity = targetEntity(filter, input);
    const page = readActorPage(input);
    const clock = projectClock(project);
    const range = dataPointRange(filter, clock);
    const series = {
      teamId: project.id,
      timezone: project.timezone,
      entity,
      properties: withSearch(combineAnd(filter.properties, testAccountFilters(project, filter), entity.properties), input),
      resolvers: this.resolvers,
    };
    const breakdownValue = input.breakdown_value === undefined || input.breakdown_value === null ? null : String(input.breakdown_value);
    try {
      const topValues = breakdownValue === BREAKDOWN_OTHER ? await this.topValues(filter, series, range, clock) : [];
      const { sql, params } = await trendActorsSql({ series, range, breakdown: filter.breakdown, breakdownValue, topValues, page });
      const rows = await this.warehouse.query<{ actor_id: string }>(sql, params);
      return hydrateActors(this.hydrator, project, rows.map((row) => row.actor_id), page);
    } catch (error) {
      // As the trend itself: a series of an action the project does not have has no persons.
      if (error instanceof UnknownAction) return emptyActorList(page);
      throw error;
    }
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
