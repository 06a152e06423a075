import type { Project } from '../projects/project.js';
import { orderDistinctIds, personName } from './person-name.js';

/** PostHog's Person shape, used by every endpoint that answers persons. */
export interface ApiPerson {
  id: number;
  name: string;
  distinct_ids: string[];
  properties: Record<string, unknown>;
  created_at: string;
  uuid: string;
  is_identified: boolean;
}

/** What any read (catalog or warehouse) knows about a person. */
export interface PersonView {
  id: number;
  uuid: string;
  properties: Record<string, unknown>;
  isIdentified: boolean;
  createdAt: string;
  /** In the order the person gained them. */
  distinctIds: readonly string[];
}

export function serializePerson(person: PersonView, project: Project): ApiPerson {
  const distinctIds = orderDistinctIds(person.distinctIds);
  return {
    id: person.id,
    name: personName(person.id, person.properties, distinctIds, project.personDisplayNameProperties),
    distinct_ids: distinctIds,
    properties: person.properties,
    created_at: person.createdAt,
    uuid: person.uuid,
    is_identified: person.isIdentified,
  };
}
