import { ValidationError } from '../../errors.js';
import type { PersonHydrator } from '../../persons/person-hydration.js';
import type { Project } from '../../projects/project.js';
import type { Warehouse } from '../../storage/warehouse/warehouse.js';
import { parseAnalysisFilter, targetEntity } from '../actors/analysis-filter.js';
import { emptyActorList, hydrateActors, type ActorList } from '../actors/actor-list.js';
import { readActorPage } from '../actors/actor-page.js';
import { withSearch } from '../actors/actor-search.js';
import { analysisWindow, projectClock, testAccountFilters } from '../actors/analysis-inputs.js';
import { requiredInteger } from '../actors/required-params.js';
import { combineAnd, type RawInput } from '../filter-model.js';
import { UnknownAction, type InsightResolvers } from '../trends/series-scope.js';
import { stickinessActorsSql } from './stickiness-actors.js';

/** `GET /persons/stickiness`: the persons of one stickiness bar (active in exactly N intervals). */
export class StickinessActorsService {
  constructor(
    private readonly warehouse: Warehouse,
    private readonly hydrator: PersonHydrator,
    private readonly resolvers: InsightResolvers,
  ) {}

  async actors(project: Project, input: RawInput): Promise<ActorList> {
    const intervals = requiredInteger(input, 'stickiness_days', 'Must include the number of intervals (stickiness_days).');
    if (intervals < 1) throw new ValidationError('stickiness_days', 'stickiness_days must be at least 1.');
    const filter = parseAnalysisFilter(input);
    const entity = targetEntity(filter, input);
    const page = readActorPage(input);
    const clock = projectClock(project);
    const { from, to } = analysisWindow(filter.dates, clock);
    const series = {
      teamId: project.id,
      timezone: project.timezone,
      entity,
      properties: withSearch(combineAnd(filter.properties, testAccountFilters(project, filter), entity.properties), input),
      resolvers: this.resolvers,
    };
    try {
      const { sql, params } = await stickinessActorsSql({
        series,
        from,
        to,
        interval: filter.dates.interval,
        weekStartDay: clock.weekStartDay,
        intervals,
        page,
      });
      const rows = await this.warehouse.query<{ actor_id: string }>(sql, params);
      return hydrateActors(this.hydrator, project, rows.map((row) => row.actor_id), page);
    } catch (error) {
      if (error instanceof UnknownAction) return emptyActorList(page);
      throw error;
    }
  }
}
