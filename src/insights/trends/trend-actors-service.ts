import type { PersonHydrator } from '../../persons/person-hydration.js';
import type { Project } from '../../projects/project.js';
import type { Warehouse } from '../../storage/warehouse/warehouse.js';
import { textOf } from '../../util/text.js';
import { parseAnalysisFilter, targetEntity } from '../actors/analysis-filter.js';
import type { ActorList } from '../actors/actor-list.js';
import { actorSeries, queryActors } from '../actors/actor-query.js';
import { readActorPage } from '../actors/actor-page.js';
import { projectClock } from '../actors/analysis-inputs.js';
import type { InsightFilter, RawInput } from '../filter-model.js';
import { resolveDateRange, type ProjectClock } from '../../query/date-range.js';
import { BREAKDOWN_NULL, BREAKDOWN_OTHER, planBreakdown } from './breakdown.js';
import type { InsightResolvers, SeriesDefinition } from './series-scope.js';
import { dataPointRange, trendActorsSql, type DataPointRange } from './trend-actors.js';

/** `GET /persons/trends`: the persons behind one trend data point (entity, bucket, breakdown value). */
export class TrendActorsService {
  constructor(
    private readonly warehouse: Warehouse,
    private readonly hydrator: PersonHydrator,
    private readonly resolvers: InsightResolvers,
  ) {}

  async actors(project: Project, input: RawInput): Promise<ActorList> {
    const filter = parseAnalysisFilter(input);
    const entity = targetEntity(filter, input);
    const page = readActorPage(input);
    const clock = projectClock(project);
    const range = dataPointRange(filter, clock);
    const series = actorSeries(project, filter, entity, input, this.resolvers);
    const breakdownValue = input.breakdown_value === undefined || input.breakdown_value === null ? null : textOf(input.breakdown_value);
    return queryActors(this.warehouse, this.hydrator, project, page, async () => {
      const topValues = breakdownValue === BREAKDOWN_OTHER ? await this.topValues(filter, series, range, clock) : [];
      return trendActorsSql({ series, range, breakdown: filter.breakdown, breakdownValue, topValues, page });
    });
  }

  /**
   * The named buckets of a property breakdown, chosen as the trend chooses them; PostHog's persons
   * URL only carries the data point's dates, so they are ranked over those.
   */
  private async topValues(filter: InsightFilter, series: SeriesDefinition, range: DataPointRange, clock: ProjectClock): Promise<string[]> {
    if (!filter.breakdown || filter.breakdown.type === 'cohort') return [];
    const rangeOfPoint = { ...resolveDateRange(filter.dates, clock), from: range.from, to: range.to };
    const plan = await planBreakdown(filter.breakdown, series, rangeOfPoint, 0, this.warehouse);
    return (plan?.values ?? []).filter((value) => value !== BREAKDOWN_OTHER).map((value) => (value === BREAKDOWN_NULL ? '' : String(value)));
  }
}
