import type { SqlResolvers } from '../../query/resolvers.js';
import type { DateTime } from 'luxon';
import type { PersonHydrator } from '../../persons/person-hydrator.js';
import type { Project } from '../../projects/project.js';
import type { Warehouse } from '../../storage/warehouse/warehouse.js';
import { hydrateActors, type ActorList } from '../actors/actor-list.js';
import { readActorPage } from '../actors/actor-page.js';
import { withSearch } from '../actors/actor-search.js';
import { analysisWindow, projectClock, testAccountFilters } from '../actors/analysis-inputs.js';
import type { RawInput } from '../filter-model.js';
import { combineAnd } from '../../query/property-filter-model.js';
import { parseStepSelection, stepBreakdownKey } from './funnel-actors.js';
import { FunnelRunner, type FunnelActorsRequest, type FunnelStepSelection } from './funnel-runner.js';
import { isFunnelTrendsRequest, parseFunnelTrendsSelection } from './funnel-trends-selection.js';
import { parseFunnelFilter, type FunnelFilter } from './funnel-filter.js';

/**
 * `GET|POST /persons/funnel`: the persons who reached, or dropped off at, one funnel step; for
 * funnel trends, who entered in one period and converted or dropped off. The funnel runner
 * selects them from the rows its numbers count.
 */
export class FunnelActorsService {
  readonly runner: FunnelRunner;

  constructor(
    warehouse: Warehouse,
    private readonly hydrator: PersonHydrator,
    private readonly resolvers: SqlResolvers,
  ) {
    this.runner = new FunnelRunner(warehouse, resolvers);
  }

  /** The funnel of a request, with its test-account and search filters folded into the properties. */
  funnelOf(project: Project, input: RawInput): FunnelFilter {
    const filter = parseFunnelFilter(input);
    return { ...filter, properties: withSearch(combineAnd(filter.properties, testAccountFilters(project, filter)), input) };
  }

  /** Where the funnel's events come from: the project's events of the date range (default the last 7 days). */
  scopeOf(project: Project, filter: FunnelFilter) {
    const { from, to } = analysisWindow(filter.dates, projectClock(project));
    return { teamId: project.id, timezone: project.timezone, from, to, resolvers: this.resolvers };
  }

  async actors(project: Project, input: RawInput): Promise<ActorList> {
    const filter = parseFunnelFilter(input);
    let selection: FunnelStepSelection;
    let period: string | null = null;
    if (isFunnelTrendsRequest(input)) {
      const trends = parseFunnelTrendsSelection(input, filter, projectClock(project));
      selection = { kind: 'between', min: trends.minSteps, max: trends.maxSteps };
      period = trends.period;
    } else selection = parseStepSelection(input, filter.steps.length);
    return this.stepActors(project, filter, {
      selection,
      breakdownValue: stepBreakdownKey(input.funnel_step_breakdown, filter.breakdown),
      period,
      page: readActorPage(input),
      properties: withSearch(combineAnd(), input),
    });
  }

  /** The persons of one funnel data point, as the funnel runner selects them. */
  async stepActors(project: Project, filter: FunnelFilter, request: FunnelActorsRequest, now?: DateTime): Promise<ActorList> {
    const ids = await this.runner.actorIds(project, filter, request, now);
    return hydrateActors(this.hydrator, project, ids, request.page);
  }
}
