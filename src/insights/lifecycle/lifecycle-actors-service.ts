import { ValidationError } from '../../errors.js';
import type { PersonHydrator } from '../../persons/person-hydration.js';
import type { Project } from '../../projects/project.js';
import type { Warehouse } from '../../storage/warehouse/warehouse.js';
import { parseAnalysisFilter } from '../actors/analysis-filter.js';
import { emptyActorList, hydrateActors, type ActorList } from '../actors/actor-list.js';
import { readActorPage } from '../actors/actor-page.js';
import { withSearch } from '../actors/actor-search.js';
import { projectClock, testAccountFilters } from '../actors/analysis-inputs.js';
import { requiredString } from '../actors/required-params.js';
import { nextBucket, parseDate, truncate } from '../date-range.js';
import { combineAnd, type RawInput } from '../filter-model.js';
import { UnknownAction, type InsightResolvers } from '../trends/series-scope.js';
import { LIFECYCLE_STATUSES, lifecycleActorsSql, type LifecycleStatus } from './lifecycle-actors.js';

/** `GET /persons/lifecycle`: the persons of one lifecycle status in one period. */
export class LifecycleActorsService {
  constructor(
    private readonly warehouse: Warehouse,
    private readonly hydrator: PersonHydrator,
    private readonly resolvers: InsightResolvers,
  ) {}

  async actors(project: Project, input: RawInput): Promise<ActorList> {
    const targetDate = requiredString(input, 'target_date', 'Must include specified date');
    const status = requiredString(input, 'lifecycle_type', 'Must include lifecycle type');
    if (!(LIFECYCLE_STATUSES as readonly string[]).includes(status)) {
      throw new ValidationError('lifecycle_type', `lifecycle_type must be one of ${LIFECYCLE_STATUSES.join(', ')}.`);
    }
    const filter = parseAnalysisFilter(input);
    const entity = filter.entities[0];
    if (!entity) throw new ValidationError('events', 'A lifecycle needs one series in events or actions.', 'required');
    const clock = projectClock(project);
    const parsed = parseDate(targetDate, clock.timezone, clock.now);
    if (!parsed) throw new ValidationError('target_date', `Unable to parse target_date "${targetDate}".`);
    const { interval } = filter.dates;
    const periodStart = truncate(parsed.at, interval, clock.weekStartDay);
    const page = readActorPage(input);
    const series = {
      teamId: project.id,
      timezone: project.timezone,
      entity,
      properties: withSearch(combineAnd(filter.properties, testAccountFilters(project, filter), entity.properties), input),
      resolvers: this.resolvers,
    };
    try {
      const { sql, params } = await lifecycleActorsSql({
        series,
        previousStart: truncate(periodStart.minus({ milliseconds: 1 }), interval, clock.weekStartDay),
        periodStart,
        nextStart: nextBucket(periodStart, interval),
        status: status as LifecycleStatus,
        page,
      });
      const rows = await this.warehouse.query<{ actor_id: string }>(sql, params);
      return hydrateActors(this.hydrator, project, rows.map((row) => row.actor_id), page);
    } catch (error) {
      if (error instanceof UnknownAction) return emptyActorList(page);
      throw error;
    }
  }
}
