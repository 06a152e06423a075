import type { ApiPerson } from '../../persons/person-serializer.js';
import type { PersonHydrator } from '../../persons/person-hydrator.js';
import type { Project } from '../../projects/project.js';
import { pageRows, type ActorPage } from './actor-page.js';

/** One page of an actors answer: the persons found, and what the envelope needs to page on. */
export interface ActorList {
  people: ApiPerson[];
  page: ActorPage;
  /** Whether the query found actors after this page. */
  hasMore: boolean;
  /** Rows of the page whose person no longer exists. */
  missingPersons: number;
}

export function emptyActorList(page: ActorPage): ActorList {
  return { people: [], page, hasMore: false, missingPersons: 0 };
}

/**
 * The page of actors out of the ids a `limitClause` query read, in the query's order; persons
 * deleted since are counted, not shown.
 */
export async function hydrateActors(hydrator: PersonHydrator, project: Project, actorIds: string[], page: ActorPage): Promise<ActorList> {
  const { rows: ids, hasMore } = pageRows(actorIds, page);
  const persons = await hydrator.byUuids(project, ids);
  const people = ids.map((id) => persons.get(id)).filter((person): person is ApiPerson => person !== undefined);
  return { people, page, hasMore, missingPersons: ids.length - people.length };
}
