import { NotFound, RequiredFieldError } from '../errors.js';
import type { Project } from '../projects/project.js';
import { parsePersonKey, type PersonKey } from './person-id.js';
import type { PersonRepository } from './person-repository.js';
import { serializePerson, type ApiPerson } from './person-serializer.js';
import type { PersonRecord } from './person.js';

/** Reads of single persons, from the catalog (the source of truth). */
export class PersonService {
  constructor(private readonly persons: PersonRepository) {}

  async find(project: Project, key: PersonKey): Promise<PersonRecord> {
    const person = await this.persons.findByKey(project.id, key);
    if (!person) throw new NotFound();
    return person;
  }

  async retrieve(project: Project, key: PersonKey): Promise<ApiPerson> {
    const person = await this.find(project, key);
    return serializePerson({ ...person, distinctIds: await this.persons.distinctIdsOf(person.id) }, project);
  }

  /** The person `GET /persons/cohorts?person_id=` names (integer id or UUID). */
  async findByParam(project: Project, personIdParam: string | undefined): Promise<PersonRecord> {
    if (personIdParam === undefined || personIdParam === '') throw new RequiredFieldError('person_id');
    return this.find(project, parsePersonKey(personIdParam));
  }
}
