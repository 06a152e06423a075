import { ValidationError } from '../../errors.js';
import type { PersonHydrator } from '../../persons/person-hydration.js';
import type { Project } from '../../projects/project.js';
import type { Warehouse } from '../../storage/warehouse/warehouse.js';
import { parseAnalysisFilter, targetEntity } from '../actors/analysis-filter.js';
import type { ActorList } from '../actors/actor-list.js';
import { actorSeries, queryActors } from '../actors/actor-query.js';
import { readActorPage } from '../actors/actor-page.js';
import { analysisWindow, projectClock } from '../actors/analysis-inputs.js';
import { requiredInteger } from '../actors/required-params.js';
import type { RawInput } from '../filter-model.js';
import type { InsightResolvers } from '../trends/series-scope.js';
import { stickinessActorsSql } from './stickiness-actors.js';

/** `GET /persons/stickiness`: the persons of one stickiness bar (active in exactly N intervals). */
export class StickinessActorsService {
  constructor(
    private readonly warehouse: Warehouse,
    private readonly hydrator: PersonHydrator,
    private readonly resolvers: InsightResolvers,
  ) {}

  async actors(project: Project, input: RawInput): Promise<ActorList> {
    const intervals = requiredInteger(input, 'stickiness_days', 'Must include the number of intervals (stickiness_days).');
    if (intervals < 1) throw new ValidationError('stickiness_days', 'stickiness_days must be at least 1.');
    const filter = parseAnalysisFilter(input);
    const entity = targetEntity(filter, input);
    const page = readActorPage(input);
    const clock = projectClock(project);
    const { from, to } = analysisWindow(filter.dates, clock);
    const series = actorSeries(project, filter, entity, input, this.resolvers);
    return queryActors(this.warehouse, this.hydrator, project, page, () =>
      stickinessActorsSql({ series, from, to, interval: filter.dates.interval, weekStartDay: clock.weekStartDay, intervals, page }),
    );
  }
}
