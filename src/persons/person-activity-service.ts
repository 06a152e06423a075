import type { Project } from '../projects/project.js';
import { PERSON_SCOPE, type ActivityLogRepository } from './activity-log-repository.js';
import type { PersonKey } from './person-id.js';
import type { PersonService } from './person-service.js';

/** The activity log of persons: one person's entries, or every person entry of a project. */
export class PersonActivityService {
  constructor(
    private readonly activity: ActivityLogRepository,
    private readonly persons: PersonService,
  ) {}

  /** A deleted person's entries are only in the project-wide log: its own answers 404, as PostHog's does. */
  async ofPerson(project: Project, key: PersonKey, page: { page: number; limit: number }) {
    const person = await this.persons.find(project, key);
    return this.activity.list({ teamId: project.id, scope: PERSON_SCOPE, itemId: String(person.id) }, offsetOf(page));
  }

  async ofProject(project: Project, page: { page: number; limit: number }) {
    return this.activity.list({ teamId: project.id, scope: PERSON_SCOPE }, offsetOf(page));
  }
}

function offsetOf(page: { page: number; limit: number }) {
  return { limit: page.limit, offset: (page.page - 1) * page.limit };
}
