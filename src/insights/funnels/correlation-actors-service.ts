import type { PersonHydrator } from '../../persons/person-hydrator.js';
import type { Project } from '../../projects/project.js';
import type { Warehouse } from '../../storage/warehouse/warehouse.js';
import type { ActorList } from '../actors/actor-list.js';
import { readActorPage, type ActorPage } from '../actors/actor-page.js';
import { withSearch } from '../actors/actor-search.js';
import type { RawInput } from '../filter-model.js';
import { combineAnd, type PropertyGroup } from '../../query/property-filter-model.js';
import { parseConverted, parseCorrelationSelection } from './correlation-actors.js';
import { CorrelationRunner, type CorrelationActorsSelection } from './correlation-runner.js';
import type { FunnelActorsService } from './funnel-actors-service.js';
import { parseFunnelFilter, type FunnelFilter } from './funnel-filter.js';

/** The correlation endpoint's own paging parameters. */
export const CORRELATION_PAGE_KEYS = { limit: 'funnel_correlation_person_limit', offset: 'funnel_correlation_person_offset' };

/** `GET|POST /persons/funnel/correlation`: the persons behind one funnel correlation row, from the correlation runner. */
export class CorrelationActorsService {
  private readonly runner: CorrelationRunner;

  constructor(
    warehouse: Warehouse,
    private readonly hydrator: PersonHydrator,
    funnels: FunnelActorsService,
  ) {
    this.runner = new CorrelationRunner(warehouse, funnels.runner);
  }

  async actors(project: Project, input: RawInput): Promise<ActorList> {
    const funnel = parseFunnelFilter(input);
    const selection = parseCorrelationSelection(input);
    const converted = parseConverted(input.funnel_correlation_person_converted);
    const page = readActorPage(input, CORRELATION_PAGE_KEYS.limit, CORRELATION_PAGE_KEYS.offset);
    const search = withSearch(combineAnd(), input);
    return this.rowActors(project, funnel, selection, converted, page, search);
  }

  /** The persons behind one correlation row; `extra` filters them further (a search). */
  rowActors(
    project: Project,
    funnel: FunnelFilter,
    selection: CorrelationActorsSelection,
    converted: boolean | null,
    page: ActorPage,
    extra: PropertyGroup,
  ): Promise<ActorList> {
    return this.runner.actors(project, funnel, selection, converted, page, this.hydrator, extra.values.length > 0 ? extra : undefined);
  }
}
