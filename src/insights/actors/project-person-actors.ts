import type { PersonHydrator } from '../../persons/person-hydrator.js';
import type { PersonListFilter } from '../../persons/person-list-filter.js';
import type { PersonListService } from '../../persons/person-list-service.js';
import type { Project } from '../../projects/project.js';
import type { Warehouse } from '../../storage/warehouse/warehouse.js';
import { hydrateActors, type ActorList } from './actor-list.js';
import type { ActorPage } from './actor-page.js';
import { actorPageSql, NEWEST_PERSON_FIRST } from './actor-page-sql.js';

/**
 * The project's persons as the actors of an ActorsQuery without a source: the persons list's
 * page (newest first), or, in another order, the persons its filters match sorted by the
 * warehouse, so that either way one page is read.
 */
export class ProjectPersonActors {
  constructor(
    private readonly list: PersonListService,
    private readonly warehouse: Warehouse,
    private readonly hydrator: PersonHydrator,
  ) {}

  async page(project: Project, filter: PersonListFilter, page: ActorPage): Promise<ActorList> {
    if (page.order === undefined) {
      const { total, persons } = await this.list.list(project, filter, page);
      return { people: persons, page, hasMore: page.offset + persons.length < total, missingPersons: 0 };
    }
    const { sql, params } = await this.list.matchingRows(project, filter);
    const rows = await this.warehouse.query<{ actor_id: string }>(
      actorPageSql({ sql, persons: 'carried', order: NEWEST_PERSON_FIRST }, page, params),
      params.all,
    );
    return hydrateActors(
      this.hydrator,
      project,
      rows.map((row) => row.actor_id),
      page,
    );
  }

  /** The replica columns of these person properties (key → column), which an order reads them from. */
  propertyColumns(keys: readonly string[]): Promise<ReadonlyMap<string, string>> {
    return this.list.propertyColumns(keys);
  }
}
