import { ValidationError } from '../../errors.js';
import type { PersonHydrator } from '../../persons/person-hydration.js';
import type { Project } from '../../projects/project.js';
import type { Warehouse } from '../../storage/warehouse/warehouse.js';
import { parseAnalysisFilter } from '../actors/analysis-filter.js';
import type { ActorList } from '../actors/actor-list.js';
import { actorSeries, queryActors } from '../actors/actor-query.js';
import { readActorPage } from '../actors/actor-page.js';
import { projectClock } from '../actors/analysis-inputs.js';
import { requiredString } from '../actors/required-params.js';
import { nextBucket, parseDate, truncate } from '../../query/date-range.js';
import type { RawInput } from '../filter-model.js';
import type { InsightResolvers } from '../trends/series-scope.js';
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
    const series = actorSeries(project, filter, entity, input, this.resolvers);
    return queryActors(this.warehouse, this.hydrator, project, page, () =>
      lifecycleActorsSql({
        series,
        previousStart: truncate(periodStart.minus({ milliseconds: 1 }), interval, clock.weekStartDay),
        periodStart,
        nextStart: nextBucket(periodStart, interval),
        status: status as LifecycleStatus,
        page,
      }),
    );
  }
}
