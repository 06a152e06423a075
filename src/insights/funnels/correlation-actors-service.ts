import type { PersonHydrator } from '../../persons/person-hydration.js';
import type { Project } from '../../projects/project.js';
import type { Warehouse } from '../../storage/warehouse/warehouse.js';
import { hydrateActors, type ActorList } from '../actors/actor-list.js';
import { readActorPage } from '../actors/actor-page.js';
import type { RawInput } from '../filter-model.js';
import { correlationActorsSql, parseConverted, parseCorrelationSelection } from './correlation-actors.js';
import type { FunnelActorsService } from './funnel-actors-service.js';

/** The correlation endpoint's own paging parameters. */
export const CORRELATION_PAGE_KEYS = { limit: 'funnel_correlation_person_limit', offset: 'funnel_correlation_person_offset' };

/** `GET|POST /persons/funnel/correlation`: the persons behind one funnel correlation row. */
export class CorrelationActorsService {
  constructor(
    private readonly warehouse: Warehouse,
    private readonly hydrator: PersonHydrator,
    private readonly funnels: FunnelActorsService,
  ) {}

  async actors(project: Project, input: RawInput): Promise<ActorList> {
    const filter = this.funnels.funnelOf(project, input);
    const selection = parseCorrelationSelection(input);
    const converted = parseConverted(input.funnel_correlation_person_converted);
    const page = readActorPage(input, CORRELATION_PAGE_KEYS.limit, CORRELATION_PAGE_KEYS.offset);
    const { sql, params } = await correlationActorsSql({ scope: this.funnels.scopeOf(project, filter), filter, selection, converted, page });
    const rows = await this.warehouse.query<{ actor_id: string }>(sql, params);
    return hydrateActors(this.hydrator, project, rows.map((row) => row.actor_id), page);
  }
}
