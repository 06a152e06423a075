import type { PersonHydrator } from '../../persons/person-hydrator.js';
import type { Project } from '../../projects/project.js';
import type { Warehouse } from '../../storage/warehouse/warehouse.js';
import { combineAnd, type PropertyGroup } from '../../query/property-filter-model.js';
import { hydrateActors, type ActorList } from '../actors/actor-list.js';
import { readActorPage, type ActorPage } from '../actors/actor-page.js';
import { withSearch } from '../actors/actor-search.js';
import type { RawInput } from '../filter-model.js';
import { pathActorsSql } from './path-actors.js';
import { parsePathFilter, type PathFilter } from './path-filter.js';
import type { PathRunner } from './path-runner.js';

/** `GET|POST /persons/path`: the persons through one paths node or edge, or whose path ended at a node. */
export class PathActorsService {
  constructor(
    private readonly warehouse: Warehouse,
    private readonly hydrator: PersonHydrator,
    private readonly runner: PathRunner,
  ) {}

  async actors(project: Project, input: RawInput): Promise<ActorList> {
    return this.nodeActors(project, parsePathFilter(input), readActorPage(input), withSearch(combineAnd(), input));
  }

  /** The persons through the node or edge the filter's keys name; `extra` filters them further (a search). */
  async nodeActors(project: Project, filter: PathFilter, page: ActorPage, extra: PropertyGroup): Promise<ActorList> {
    const sessions = await this.runner.sessions({ project, filter, extraProperties: extra });
    const { sql, params } = pathActorsSql(sessions, filter, page);
    const rows = await this.warehouse.query<{ actor_id: string }>(sql, params);
    return hydrateActors(
      this.hydrator,
      project,
      rows.map((row) => row.actor_id),
      page,
    );
  }
}
