import type { PersonHydrator } from '../../persons/person-hydrator.js';
import type { ApiPerson } from '../../persons/person-serializer.js';
import type { Project } from '../../projects/project.js';
import type { Warehouse } from '../../storage/warehouse/warehouse.js';
import { combineAnd, type PropertyGroup } from '../../query/property-filter-model.js';
import { pageRows, readActorPage, type ActorPage } from '../actors/actor-page.js';
import { withSearch } from '../actors/actor-search.js';
import { projectClock } from '../actors/analysis-inputs.js';
import type { RawInput } from '../filter-model.js';
import { retentionActorsSql } from './retention-actors.js';
import { parseRetentionFilter, parseRetentionSelection, type RetentionFilter, type RetentionSelection } from './retention-filter.js';
import type { RetentionRunner } from './retention-runner.js';
import type { GroupActor, GroupActorRepository } from './group-actor-repository.js';

export interface RetentionActor {
  /** The person, or the group when the table counts groups (PostHog puts either under `person`). */
  person: ApiPerson | GroupActor;
  appearances: number[];
}

export interface RetentionActorList {
  result: RetentionActor[];
  page: ActorPage;
  /** Whether the query found actors after this page. */
  hasMore: boolean;
  missingPersons: number;
}

/**
 * `GET /persons/retention`: the members of one row of the retention table (a cohort, or a
 * breakdown value), with the intervals they counted in, read from the runner's per-actor rows.
 */
export class RetentionActorsService {
  constructor(
    private readonly warehouse: Warehouse,
    private readonly hydrator: PersonHydrator,
    private readonly runner: RetentionRunner,
    private readonly groups: GroupActorRepository,
  ) {}

  async actors(project: Project, input: RawInput): Promise<RetentionActorList> {
    const filter = parseRetentionFilter(input, projectClock(project));
    return this.rowActors(project, filter, parseRetentionSelection(input, filter), readActorPage(input), withSearch(combineAnd(), input));
  }

  /** The actors of one retention row (or one interval of it) with their appearances; `extra` filters them further (a search). */
  async rowActors(
    project: Project,
    filter: RetentionFilter,
    selection: RetentionSelection,
    page: ActorPage,
    extra: PropertyGroup,
  ): Promise<RetentionActorList> {
    const rows = await this.runner.actorRows({ project, filter, extraProperties: extra });
    const { sql, params } = retentionActorsSql(rows, selection, page, filter.aggregationGroupTypeIndex !== null);
    const { rows: found, hasMore } = pageRows(await this.warehouse.query<{ actor_id: string; appearances: Array<number | string> }>(sql, params), page);
    const ids = found.map((row) => row.actor_id);
    const groupType = filter.aggregationGroupTypeIndex;
    const actors: Map<string, ApiPerson | GroupActor> =
      groupType === null ? await this.hydrator.byUuids(project, ids) : await this.groups.byKeys(project.id, groupType, ids);
    const result: RetentionActor[] = [];
    for (const row of found) {
      const actor = actors.get(row.actor_id);
      if (actor) result.push({ person: actor, appearances: row.appearances.map(Number) });
    }
    return { result, page, hasMore, missingPersons: found.length - result.length };
  }
}
