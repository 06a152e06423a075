import type { PersonHydrator } from '../../persons/person-hydration.js';
import type { Project } from '../../projects/project.js';
import type { Warehouse } from '../../storage/warehouse/warehouse.js';
import { parseAnalysisFilter, targetEntity } from '../actors/analysis-filter.js';
import { emptyActorList, hydrateActors, type ActorList } from '../actors/actor-list.js';
import { readActorPage } from '../actors/actor-page.js';
import { withSearch } from '../actors/actor-search.js';
import { projectClock, testAccountFilters } from '../actors/insight-clock.js';
import { combineAnd, type RawInput } from '../filter-model.js';
import { UnknownAction, type InsightResolvers } from './series-scope.js';
import { dataPointRange, trendActorsSql } from './trend-actors.js';

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
    const range = dataPointRange(filter, projectClock(project));
    const series = {
      teamId: project.id,
      timezone: project.timezone,
      entity,
      properties: withSearch(combineAnd(filter.properties, testAccountFilters(project, filter), entity.properties), input),
      resolvers: this.resolvers,
    };
    const breakdownValue = input.breakdown_value === undefined || input.breakdown_value === null ? null : String(input.breakdown_value);
    try {
      const { sql, params } = await trendActorsSql({ series, range, breakdown: filter.breakdown, breakdownValue, page });
      const rows = await this.warehouse.query<{ actor_id: string }>(sql, params);
      return hydrateActors(this.hydrator, project, rows.map((row) => row.actor_id), page);
    } catch (error) {
      // As the trend itself: a series of an action the project does not have has no persons.
      if (error instanceof UnknownAction) return emptyActorList(page);
      throw error;
    }
  }
}
