import type { PersonHydrator } from '../../persons/person-hydration.js';
import type { Project } from '../../projects/project.js';
import type { Warehouse } from '../../storage/warehouse/warehouse.js';
import { hydrateActors, type ActorList } from '../actors/actor-list.js';
import { readActorPage } from '../actors/actor-page.js';
import { withSearch } from '../actors/actor-search.js';
import { analysisWindow, projectClock, testAccountFilters } from '../actors/analysis-inputs.js';
import { type RawInput } from '../filter-model.js';
import { combineAnd } from '../../query/property-filter-model.js';
import type { InsightResolvers } from '../trends/series-scope.js';
import type { FunnelActorsService } from '../funnels/funnel-actors-service.js';
import { pathActorsSql } from './path-actors.js';
import { parsePathFilter } from './path-filter.js';

/** `GET|POST /persons/path`: the persons through one paths node or edge, or whose path ended at a node. */
export class PathActorsService {
  constructor(
    private readonly warehouse: Warehouse,
    private readonly hydrator: PersonHydrator,
    private readonly resolvers: InsightResolvers,
    private readonly funnels: FunnelActorsService,
  ) {}

  /** The funnel of funnel paths, read as the funnel actors endpoint reads it. */
  private funnelOf(project: Project, funnelInput: RawInput) {
    const funnel = this.funnels.funnelOf(project, funnelInput);
    const { teamId, timezone, from, to, resolvers } = this.funnels.scopeOf(project, funnel);
    return { funnel, funnelInput, scope: { teamId, timezone, from, to, resolvers } };
  }

  async actors(project: Project, input: RawInput): Promise<ActorList> {
    const parsed = parsePathFilter(input);
    const filter = { ...parsed, properties: withSearch(combineAnd(parsed.properties, testAccountFilters(project, parsed)), input) };
    const { from, to } = analysisWindow(filter.dates, projectClock(project));
    const page = readActorPage(input);
    const { sql, params } = await pathActorsSql({
      scope: { teamId: project.id, timezone: project.timezone, from, to, resolvers: this.resolvers },
      filter,
      funnel: filter.funnelPaths ? this.funnelOf(project, filter.funnelPaths.funnelInput) : null,
      page,
    });
    const rows = await this.warehouse.query<{ actor_id: string }>(sql, params);
    return hydrateActors(this.hydrator, project, rows.map((row) => row.actor_id), page);
  }
}
