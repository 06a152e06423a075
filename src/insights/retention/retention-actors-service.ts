import type { PersonHydrator } from '../../persons/person-hydration.js';
import type { ApiPerson } from '../../persons/person-serializer.js';
import type { Project } from '../../projects/project.js';
import type { Warehouse } from '../../storage/warehouse/warehouse.js';
import { readActorPage, type ActorPage } from '../actors/actor-page.js';
import { withSearch } from '../actors/actor-search.js';
import { projectClock, testAccountFilters } from '../actors/analysis-inputs.js';
import { type RawInput } from '../filter-model.js';
import { combineAnd } from '../../query/property-filter-model.js';
import type { InsightResolvers } from '../trends/series-scope.js';
import { retentionActorsSql } from './retention-actors.js';
import { parseRetentionFilter, selectedInterval } from './retention-filter.js';

export interface RetentionActor {
  person: ApiPerson;
  appearances: number[];
}

export interface RetentionActorList {
  result: RetentionActor[];
  page: ActorPage;
  rawCount: number;
  missingPersons: number;
}

/** `GET /persons/retention`: the members of one cohort row, with the periods they came back in. */
export class RetentionActorsService {
  constructor(
    private readonly warehouse: Warehouse,
    private readonly hydrator: PersonHydrator,
    private readonly resolvers: InsightResolvers,
  ) {}

  async actors(project: Project, input: RawInput): Promise<RetentionActorList> {
    const clock = projectClock(project);
    const filter = parseRetentionFilter(input, clock);
    const selected = selectedInterval(input, filter.totalIntervals);
    const page = readActorPage(input);
    const { sql, params } = await retentionActorsSql({
      teamId: project.id,
      timezone: project.timezone,
      weekStartDay: clock.weekStartDay,
      filter,
      properties: withSearch(combineAnd(filter.properties, testAccountFilters(project, filter)), input),
      selected,
      page,
      resolvers: this.resolvers,
    });
    const rows = await this.warehouse.query<{ actor_id: string; appearances: Array<number | string> }>(sql, params);
    const persons = await this.hydrator.byUuids(project, rows.map((row) => row.actor_id));
    const result: RetentionActor[] = [];
    for (const row of rows) {
      const person = persons.get(row.actor_id);
      if (person) result.push({ person, appearances: row.appearances.map(Number) });
    }
    return { result, page, rawCount: rows.length, missingPersons: rows.length - result.length };
  }
}
