import type { PersonRepository } from '../persons/person-repository.js';

/** The person an event list shows beside an event (`include_person=true`). */
export interface EventPerson {
  isIdentified: boolean;
  /** The person's first distinct id only: a person can have thousands. */
  firstDistinctId: string;
  /** `email`, `name` and `username`, those the person has. */
  properties: Record<string, unknown>;
}

const SHOWN_PROPERTIES = ['email', 'name', 'username'];

/** The current person of each distinct id that has one. */
export async function personsOfDistinctIds(persons: PersonRepository, teamId: number, distinctIds: readonly string[]): Promise<Map<string, EventPerson>> {
  const byDistinctId = await persons.findByDistinctIds(teamId, distinctIds);
  const distinctIdsByPerson = await persons.distinctIdsOfMany([...byDistinctId.values()].map((person) => person.id));
  const shown = new Map<string, EventPerson>();
  for (const [distinctId, person] of byDistinctId) {
    const properties: Record<string, unknown> = {};
    for (const key of SHOWN_PROPERTIES) if (Object.hasOwn(person.properties, key)) properties[key] = person.properties[key];
    shown.set(distinctId, {
      isIdentified: person.isIdentified,
      firstDistinctId: distinctIdsByPerson.get(person.id)?.[0] ?? distinctId,
      properties,
    });
  }
  return shown;
}
