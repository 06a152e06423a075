import type { DateTime } from 'luxon';
import { ValidationError } from '../../errors.js';
import type { PersonHydrator } from '../../persons/person-hydrator.js';
import type { Project } from '../../projects/project.js';
import { combineAnd, type PropertyGroup } from '../../query/property-filter-model.js';
import { hydrateActors, type ActorList } from '../actors/actor-list.js';
import { readActorPage, type ActorPage } from '../actors/actor-page.js';
import { withSearch } from '../actors/actor-search.js';
import { parseAnalysisFilter } from '../actors/analysis-filter.js';
import { requiredInteger } from '../actors/required-params.js';
import type { RawInput, SeriesEntity } from '../filter-model.js';
import { requireTargetEntity } from '../trends/trend-actors-entity.js';
import { stickinessFilter, type StickinessFilter } from './stickiness-filter.js';
import type { StickinessPoint, StickinessRunner } from './stickiness-runner.js';

/** `/persons/stickiness`: the persons of one stickiness data point (active in exactly N intervals), as the insight counts them. */
export class StickinessActorsService {
  constructor(
    private readonly runner: StickinessRunner,
    private readonly hydrator: PersonHydrator,
  ) {}

  async actors(project: Project, input: RawInput): Promise<ActorList> {
    const intervals = requiredInteger(input, 'stickiness_days', 'Must include the number of intervals (stickiness_days).');
    if (intervals < 1) throw new ValidationError('stickiness_days', 'stickiness_days must be at least 1.');
    const source = parseAnalysisFilter(input);
    const entity = requireTargetEntity(source, input);
    return this.pointActors(project, stickinessFilter(source), entity, { intervals, operator: 'exact' }, readActorPage(input), withSearch(combineAnd(), input));
  }

  /** The persons of one data point of `entity` (see StickinessPoint); `extra` filters them further (a search). */
  async pointActors(
    project: Project,
    filter: StickinessFilter,
    entity: SeriesEntity,
    point: StickinessPoint,
    page: ActorPage,
    extra: PropertyGroup,
    now?: DateTime,
  ): Promise<ActorList> {
    const ids = await this.runner.actorIds({ project, filter: { ...filter, series: [entity] }, extraProperties: extra, now }, entity, point, page);
    return hydrateActors(this.hydrator, project, ids, page);
  }
}
