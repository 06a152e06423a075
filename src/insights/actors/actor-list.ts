import type { ApiPerson } from '../../persons/person-serializer.js';
import type { PersonHydrator } from '../../persons/person-hydration.js';
import type { Project } from '../../projects/project.js';
import type { ActorPage } from './actor-page.js';

/** One page of an actors answer: the persons found, and what the envelope needs to page on. */
export interface ActorList {
  people: ApiPerson[];
  page: ActorPage;
  /** Rows the query returned; a full page means there may be more. */
  rawCount: number;
  /** Rows whose person no longer exists. */
  missingPersons: number;
}

export function emptyActorList(page: ActorPage): ActorList {
  return { people: [], page, rawCount: 0, missingPersons: 0 };
}

/** Keeps the query's order; persons deleted since are counted, not shown. */
export async function hydrateActors(hydrator: PersonHydrator, project: Project, actorIds: string[], page: ActorPage): Promise<ActorList> {
  const persons = await hydrator.byUuids(project, actorIds);
  const people = actorIds.map((id) => persons.get(id)).filter((person): person is ApiPerson => person !== undefined);
  return { people, page, rawCount: actorIds.length, missingPersons: actorIds.length - people.length };
}
