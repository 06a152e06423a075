import type { SqlResolvers } from '../../query/resolvers.js';
import type { PersonHydrator } from '../../persons/person-hydrator.js';
import type { Project } from '../../projects/project.js';
import type { Warehouse } from '../../storage/warehouse/warehouse.js';
import type { InsightFilter, RawInput, SeriesEntity } from '../filter-model.js';
import { combineAnd } from '../../query/property-filter-model.js';
import { UnknownAction, type SeriesDefinition } from '../trends/series-scope.js';
import { emptyActorList, hydrateActors, type ActorList } from './actor-list.js';
import type { ActorPage } from './actor-page.js';
import { withSearch } from './actor-search.js';
import { testAccountFilters } from './analysis-inputs.js';

/** The series an actors query counts: the entity with the request's, its own and test-account filters, and the search. */
export function actorSeries(project: Project, filter: InsightFilter, entity: SeriesEntity, input: RawInput, resolvers: SqlResolvers): SeriesDefinition {
  return {
    teamId: project.id,
    timezone: project.timezone,
    entity,
    properties: withSearch(combineAnd(filter.properties, testAccountFilters(project, filter), entity.properties), input),
    resolvers,
  };
}

/**
 * Runs an actors query and turns its person UUIDs into the page of persons. As the insight
 * itself, a series of an action the project does not have has no persons.
 */
export async function queryActors(
  warehouse: Warehouse,
  hydrator: PersonHydrator,
  project: Project,
  page: ActorPage,
  build: () => Promise<{ sql: string; params: Record<string, unknown> }>,
): Promise<ActorList> {
  try {
    const { sql, params } = await build();
    const rows = await warehouse.query<{ actor_id: string }>(sql, params);
    return hydrateActors(
      hydrator,
      project,
      rows.map((row) => row.actor_id),
      page,
    );
  } catch (error) {
    if (error instanceof UnknownAction) return emptyActorList(page);
    throw error;
  }
}
