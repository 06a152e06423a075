import type { AnalysisActors } from '../insights/actors/analysis-actors.js';
import { ProjectPersonActors } from '../insights/actors/project-person-actors.js';
import type { CorrelationRunner } from '../insights/funnels/correlation-runner.js';
import type { FunnelRunner } from '../insights/funnels/funnel-runner.js';
import type { LifecycleRunner } from '../insights/lifecycle/lifecycle-runner.js';
import type { PathRunner } from '../insights/paths/path-runner.js';
import type { RetentionRunner } from '../insights/retention/retention-runner.js';
import type { StickinessRunner } from '../insights/stickiness/stickiness-runner.js';
import type { TrendService } from '../insights/trends/trend-service.js';
import { PersonHydrator } from '../persons/person-hydrator.js';
import type { PersonListService } from '../persons/person-list-service.js';
import type { PersonRepository } from '../persons/person-repository.js';
import type { SqlResolvers } from '../query/resolvers.js';
import type { Warehouse } from '../storage/warehouse/warehouse.js';
import { QueryDispatch } from './dispatch.js';
import { ActorsQueryKind, ActorsSourceKind } from './kinds/actors-query.js';
import { EventsQueryKind } from './kinds/events-query.js';
import { FunnelCorrelationQueryKind } from './kinds/funnel-correlation-query.js';
import { FunnelsQueryKind } from './kinds/funnels-query.js';
import { HogQLMetadataKind } from './kinds/hogql-metadata.js';
import { HogQLQueryKind } from './kinds/hogql-query.js';
import { LifecycleQueryKind } from './kinds/lifecycle-query.js';
import { PathsQueryKind } from './kinds/paths-query.js';
import { RetentionQueryKind } from './kinds/retention-query.js';
import { StickinessQueryKind } from './kinds/stickiness-query.js';
import { TrendsQueryKind } from './kinds/trends-query.js';
import { QueryApi } from './query-api.js';
import type { QueryKind } from './query-kind.js';
import { QueryStatusStore } from './query-status-store.js';

export interface QueryApiDependencies {
  persons: PersonRepository;
  warehouse: Warehouse;
  trends: TrendService;
  funnels: FunnelRunner;
  funnelCorrelation: CorrelationRunner;
  retention: RetentionRunner;
  lifecycle: LifecycleRunner;
  stickiness: StickinessRunner;
  paths: PathRunner;
  /** The services of the legacy actors endpoints and the persons list, behind ActorsQuery. */
  actors: AnalysisActors;
  personList: PersonListService;
  resolvers: SqlResolvers;
  timeoutSeconds: number;
}

/** The kinds `POST /query/` runs, by `kind`. */
export function queryKinds(dependencies: QueryApiDependencies): Record<string, QueryKind> {
  const limits = { timeoutSeconds: dependencies.timeoutSeconds };
  const personActors = new ProjectPersonActors(dependencies.personList, dependencies.warehouse, new PersonHydrator(dependencies.persons));
  const actorServices = { actors: dependencies.actors, persons: personActors };
  return {
    HogQLQuery: new HogQLQueryKind(dependencies.warehouse, limits, dependencies.resolvers.cohorts),
    EventsQuery: new EventsQueryKind(dependencies.warehouse, limits, dependencies.persons, dependencies.resolvers),
    HogQLMetadata: new HogQLMetadataKind(),
    TrendsQuery: new TrendsQueryKind(dependencies.trends, dependencies.warehouse),
    FunnelsQuery: new FunnelsQueryKind(dependencies.funnels, dependencies.warehouse),
    FunnelCorrelationQuery: new FunnelCorrelationQueryKind(dependencies.funnelCorrelation),
    RetentionQuery: new RetentionQueryKind(dependencies.retention),
    LifecycleQuery: new LifecycleQueryKind(dependencies.lifecycle),
    StickinessQuery: new StickinessQueryKind(dependencies.stickiness),
    PathsQuery: new PathsQueryKind(dependencies.paths),
    ActorsQuery: new ActorsQueryKind(actorServices),
    InsightActorsQuery: new ActorsSourceKind(actorServices),
    FunnelsActorsQuery: new ActorsSourceKind(actorServices),
    StickinessActorsQuery: new ActorsSourceKind(actorServices),
    FunnelCorrelationActorsQuery: new ActorsSourceKind(actorServices),
  };
}

export function createQueryApi(dependencies: QueryApiDependencies): QueryApi {
  return new QueryApi(new QueryDispatch(queryKinds(dependencies)), new QueryStatusStore(), dependencies.timeoutSeconds);
}
