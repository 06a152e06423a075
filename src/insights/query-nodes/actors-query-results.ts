import type { DateTime } from 'luxon';
import type { ApiPerson } from '../../persons/person-serializer.js';
import type { Project } from '../../projects/project.js';
import type { PropertyGroup } from '../../query/property-filter-model.js';
import type { ActorList } from '../actors/actor-list.js';
import type { ActorPage } from '../actors/actor-page.js';
import { withSearch } from '../actors/actor-search.js';
import type { AnalysisActors } from '../actors/analysis-actors.js';
import type { ProjectPersonActors } from '../actors/project-person-actors.js';
import { actorSort, columnTypes, columnValue, isNewestFirst, type ActorRow } from './actors-columns.js';
import type { ActorsQueryPlan } from './actors-query.js';
import { listsNewestFirst, type ActorsSource } from './actors-sources.js';
import { funnelErrorInQuery } from './funnels-query.js';
import { errorAtNodePath } from './insight-node-fields.js';
import { errorInLifecycleQuery } from './lifecycle-query.js';
import { errorInPathsQuery } from './paths-query.js';
import { errorInRetentionQuery } from './retention-query.js';
import { errorInStickinessQuery } from './stickiness-query.js';
import { errorInQuery } from './trends-query.js';

/**
 * Computes a translated ActorsQuery with the services behind the legacy `/persons/<kind>/`
 * endpoints, so its actors are theirs for the same question (and a data point's count is the
 * number of its actors), or with the persons list when there is no source. The page is read in
 * the source's own order, or in the requested one, which the warehouse sorts by: either way
 * only the page's actors are read and hydrated, however many the data point has.
 */

export interface ActorsQueryServices {
  actors: AnalysisActors;
  persons: ProjectPersonActors;
}

export interface ActorsQueryAnswer {
  results: unknown[][];
  columns: string[];
  types: string[];
  hogql: string;
  limit: number;
  offset: number;
  hasMore: boolean;
  missing_actors_count: number;
}

interface SourcePage {
  rows: ActorRow[];
  hasMore: boolean;
  missing: number;
}

function fromList(list: ActorList, values: (person: ApiPerson) => Record<string, unknown> = () => ({})): SourcePage {
  return { rows: list.people.map((person) => ({ person, values: values(person) })), hasMore: list.hasMore, missing: list.missingPersons };
}

/** A legacy-named error of a service restated at its place in the query (the actors node's own fields, else the insight's). */
function errorInSource(error: unknown, source: Exclude<ActorsSource, { kind: 'persons' }>): unknown {
  const { path, insightPath } = source;
  const own: Record<string, string> = {
    breakdown_value: 'breakdown',
    funnel_step_breakdown: 'funnelStepBreakdown',
    funnel_correlation_person_entity: 'funnelCorrelationPersonEntity',
  };
  const restated = errorAtNodePath(error, path, own);
  if (restated !== error && (restated as { attr?: string }).attr !== path) return restated;
  switch (source.kind) {
    case 'trends':
      return errorInQuery(error, insightPath);
    case 'lifecycle':
      return errorInLifecycleQuery(error, insightPath);
    case 'stickiness':
      return errorInStickinessQuery(error, insightPath);
    case 'retention':
      return errorInRetentionQuery(error, insightPath);
    case 'paths':
      return errorInPathsQuery(error, insightPath);
    case 'funnels':
      return funnelErrorInQuery(error, insightPath);
    case 'correlation':
      return funnelErrorInQuery(error, `${insightPath}.source.source`);
  }
}

/** The actors of the source on `page`, in the page's order or else the source's own. */
async function sourcePage(services: ActorsQueryServices, project: Project, plan: ActorsQueryPlan, page: ActorPage, now: DateTime): Promise<SourcePage> {
  const { source } = plan;
  const { actors } = services;
  if (source.kind === 'persons') {
    return fromList(await services.persons.page(project, { distinctId: null, email: null, search: plan.search, properties: plan.properties }, page));
  }
  const extra: PropertyGroup = withSearch(plan.properties, { search: plan.search ?? '' });
  try {
    switch (source.kind) {
      case 'trends': {
        const list = await actors.trends.dataPointActors(
          project,
          { filter: source.filter, entity: source.entity, breakdownValue: source.breakdownValue, extraProperties: extra },
          page,
          now,
        );
        return fromList(list, (person) => ({
          event_count: (person as ApiPerson & { value_at_data_point?: number | null }).value_at_data_point ?? null,
          event_distinct_ids: list.eventDistinctIds.get(person.uuid) ?? [],
        }));
      }
      case 'lifecycle':
        return fromList(await actors.lifecycle.pointActors(project, source.filter, { at: source.at, status: source.status }, page, extra, now));
      case 'stickiness': {
        const point = { intervals: source.day, operator: source.operator };
        return fromList(await actors.stickiness.pointActors(project, source.filter, source.entity, point, page, extra, now));
      }
      case 'retention': {
        const list = await actors.retention.rowActors(project, source.filter, source.selection, page, extra);
        const rows = list.result.map(({ person, appearances }) => ({
          person: person as ApiPerson,
          // PostHog lists the intervals the actor came back in, not a 0/1 flag per interval.
          values: { appearances: appearances.flatMap((present, interval) => (present ? [interval] : [])) },
        }));
        return { rows, hasMore: list.hasMore, missing: list.missingPersons };
      }
      case 'paths':
        return fromList(await actors.path.nodeActors(project, source.filter, page, extra));
      case 'funnels':
        return fromList(
          await actors.funnel.stepActors(
            project,
            source.filter,
            { selection: source.selection, breakdownValue: source.breakdownValue, period: source.period, page, properties: extra },
            now,
          ),
        );
      case 'correlation':
        return fromList(await actors.correlation.rowActors(project, source.funnel, source.selection, source.converted, page, extra));
    }
  } catch (error) {
    throw errorInSource(error, source);
  }
}

/**
 * The plan's page, with the requested order in the actors services' terms unless the source
 * lists its actors in that order anyway.
 */
async function orderedPage(persons: ProjectPersonActors, plan: ActorsQueryPlan): Promise<ActorPage> {
  const { orderBy, page } = plan;
  if (orderBy === null || (isNewestFirst(orderBy) && listsNewestFirst(plan.source))) return page;
  const properties = orderBy.flatMap((item) => (item.property === undefined ? [] : [item.property]));
  const order = actorSort(orderBy, properties.length === 0 ? new Map() : await persons.propertyColumns(properties));
  return order.length === 0 ? page : { ...page, order };
}

/** The query a HogQL runner would have run, for PostHog's `hogql` field: what was selected, from where, in which order. */
function hogqlOf(plan: ActorsQueryPlan): string {
  const from = plan.source.kind === 'persons' ? 'persons' : `persons INNER JOIN (${plan.source.kind} actors) AS source ON persons.id = source.actor_id`;
  const order = plan.orderBy === null ? '' : ` ORDER BY ${plan.orderBy.map(({ column, descending }) => `${column} ${descending ? 'DESC' : 'ASC'}`).join(', ')}`;
  return `SELECT ${plan.select.join(', ')} FROM ${from}${order} LIMIT ${plan.page.limit + 1} OFFSET ${plan.page.offset}`;
}

export async function runActorsQuery(services: ActorsQueryServices, project: Project, plan: ActorsQueryPlan, now: DateTime): Promise<ActorsQueryAnswer> {
  const found = await sourcePage(services, project, plan, await orderedPage(services.persons, plan), now);
  const types = columnTypes(plan.source.kind);
  return {
    results: found.rows.map((row) => plan.select.map((column) => columnValue(row, column))),
    columns: plan.select,
    types: plan.select.map((column) => types[column]!),
    hogql: hogqlOf(plan),
    limit: plan.page.limit,
    offset: plan.page.offset,
    hasMore: found.hasMore,
    missing_actors_count: found.missing,
  };
}
