import type { PersonHydrator } from '../../persons/person-hydration.js';
import type { Project } from '../../projects/project.js';
import type { Warehouse } from '../../storage/warehouse/warehouse.js';
import { hydrateActors, type ActorList } from '../actors/actor-list.js';
import { readActorPage } from '../actors/actor-page.js';
import { withSearch } from '../actors/actor-search.js';
import { analysisWindow, projectClock, testAccountFilters } from '../actors/analysis-inputs.js';
import { type RawInput } from '../filter-model.js';
import { combineAnd } from '../../query/property-filter-model.js';
import type { InsightResolvers } from '../trends/series-scope.js';
import { funnelActorsSql, parseStepBreakdown, parseStepSelection, type FunnelStepSelection } from './funnel-actors.js';
import { isFunnelTrendsRequest, parseFunnelTrendsSelection } from './funnel-trends-selection.js';
import { parseFunnelFilter, type FunnelFilter } from './funnel-filter.js';

/**
 * `GET|POST /persons/funnel`: the persons who reached, or dropped off at, one funnel step; for
 * funnel trends, who entered in one period and converted or dropped off.
 */
export class FunnelActorsService {
  constructor(
    private readonly warehouse: Warehouse,
    private readonly hydrator: PersonHydrator,
    private readonly resolvers: InsightResolvers,
  ) {}

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
    let filter = this.funnelOf(project, input);
    let selection: FunnelStepSelection;
    if (isFunnelTrendsRequest(input)) {
      const trends = parseFunnelTrendsSelection(input, filter, projectClock(project));
      filter = { ...filter, entrancePeriod: trends.period };
      selection = { kind: 'between', min: trends.minSteps, max: trends.maxSteps };
    } else selection = parseStepSelection(input, filter.steps.length);
    const page = readActorPage(input);
    const { sql, params } = await funnelActorsSql({
      scope: this.scopeOf(project, filter),
      filter,
      selection,
      breakdownValue: filter.breakdown ? parseStepBreakdown(input.funnel_step_breakdown) : null,
      page,
    });
    const rows = await this.warehouse.query<{ actor_id: string }>(sql, params);
    return hydrateActors(this.hydrator, project, rows.map((row) => row.actor_id), page);
  }
}
