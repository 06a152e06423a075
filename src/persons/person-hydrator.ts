import type { Project } from '../projects/project.js';
import type { PersonRepository } from './person-repository.js';
import { serializePerson, type ApiPerson } from './person-serializer.js';
import type { PersonRecord } from './person.js';

/**
 * Turns persons a warehouse query found (by UUID) into API persons, read by key from the
 * catalog, the source of truth. UUIDs of persons deleted since their events were ingested are
 * left out, so callers can report them as `missing_persons`.
 */
export class PersonHydrator {
  constructor(private readonly persons: PersonRepository) {}

  async byUuids(project: Project, uuids: readonly string[]): Promise<Map<string, ApiPerson>> {
    const records = await this.persons.findByUuids(project.id, uuids);
    const serialized = await this.serialize(project, [...records.values()]);
    return new Map(serialized.map((person) => [person.uuid, person]));
  }

  /** Catalog persons with their distinct ids, in the order given. */
  async serialize(project: Project, records: readonly PersonRecord[]): Promise<ApiPerson[]> {
    const distinctIds = await this.persons.distinctIdsOfMany(records.map((record) => record.id));
    return records.map((record) => serializePerson({ ...record, distinctIds: distinctIds.get(record.id) ?? [] }, project));
  }
}
