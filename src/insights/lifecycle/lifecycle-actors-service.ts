import type { DateTime } from 'luxon';
import { ValidationError } from '../../errors.js';
import type { PersonHydrator } from '../../persons/person-hydrator.js';
import type { Project } from '../../projects/project.js';
import { parseDate } from '../../query/date-range.js';
import { hydrateActors, type ActorList } from '../actors/actor-list.js';
import { readActorPage, type ActorPage } from '../actors/actor-page.js';
import { withSearch } from '../actors/actor-search.js';
import { projectClock } from '../actors/analysis-inputs.js';
import { requiredString } from '../actors/required-params.js';
import type { RawInput } from '../filter-model.js';
import { combineAnd, type PropertyGroup } from '../../query/property-filter-model.js';
import { LIFECYCLE_STATUSES, parseLifecycleFilter, type LifecycleFilter, type LifecycleStatus } from './lifecycle-filter.js';
import type { LifecyclePoint, LifecycleRunner } from './lifecycle-runner.js';

function lifecycleStatus(input: RawInput): LifecycleStatus {
  const status = requiredString(input, 'lifecycle_type', 'Must include lifecycle type');
  const known = LIFECYCLE_STATUSES.find((candidate) => candidate === status);
  if (!known) throw new ValidationError('lifecycle_type', `lifecycle_type must be one of ${LIFECYCLE_STATUSES.join(', ')}.`);
  return known;
}

/** `/persons/lifecycle`: the persons of one lifecycle status in one period, as the lifecycle counts them. */
export class LifecycleActorsService {
  constructor(
    private readonly runner: LifecycleRunner,
    private readonly hydrator: PersonHydrator,
  ) {}

  async actors(project: Project, input: RawInput): Promise<ActorList> {
    const targetDate = requiredString(input, 'target_date', 'Must include specified date');
    const status = lifecycleStatus(input);
    const { lifecycle } = parseLifecycleFilter(input);
    const clock = projectClock(project);
    const parsed = parseDate(targetDate, clock.timezone, clock.now);
    if (!parsed) throw new ValidationError('target_date', `Unable to parse target_date "${targetDate}".`);
    return this.pointActors(project, lifecycle, { at: parsed.at, status }, readActorPage(input), withSearch(combineAnd(), input), clock.now);
  }

  /** The persons of one status in the period holding `point.at`; `extra` filters them further (a search). */
  async pointActors(
    project: Project,
    filter: LifecycleFilter,
    point: LifecyclePoint,
    page: ActorPage,
    extra: PropertyGroup,
    now?: DateTime,
  ): Promise<ActorList> {
    const ids = await this.runner.actorIds({ project, filter, extraProperties: extra, now }, point, page);
    return hydrateActors(this.hydrator, project, ids, page);
  }
}
