import type { SqlResolvers } from '../../query/resolvers.js';
import { PersonHydrator } from '../../persons/person-hydrator.js';
import type { PersonRepository } from '../../persons/person-repository.js';
import type { CatalogDb } from '../../storage/catalog/catalog.js';
import type { Warehouse } from '../../storage/warehouse/warehouse.js';
import { TrendActorsService } from '../trends/trend-actors-service.js';
import { StickinessActorsService } from '../stickiness/stickiness-actors-service.js';
import { LifecycleActorsService } from '../lifecycle/lifecycle-actors-service.js';
import { LifecycleRunner } from '../lifecycle/lifecycle-runner.js';
import { StickinessRunner } from '../stickiness/stickiness-runner.js';
import { RetentionActorsService } from '../retention/retention-actors-service.js';
import { RetentionRunner } from '../retention/retention-runner.js';
import { GroupActorRepository } from '../retention/group-actor-repository.js';
import { FunnelActorsService } from '../funnels/funnel-actors-service.js';
import { PathActorsService } from '../paths/path-actors-service.js';
import { PathRunner } from '../paths/path-runner.js';
import { CorrelationActorsService } from '../funnels/correlation-actors-service.js';

/** Every service behind the persons analysis endpoints (`/persons/trends`, `/persons/funnel`, …). */
export interface AnalysisActors {
  trends: TrendActorsService;
  stickiness: StickinessActorsService;
  lifecycle: LifecycleActorsService;
  retention: RetentionActorsService;
  funnel: FunnelActorsService;
  path: PathActorsService;
  correlation: CorrelationActorsService;
}

export function createAnalysisActors(catalogDb: CatalogDb, persons: PersonRepository, warehouse: Warehouse, resolvers: SqlResolvers): AnalysisActors {
  const hydrator = new PersonHydrator(persons);
  const funnel = new FunnelActorsService(warehouse, hydrator, resolvers);
  return {
    trends: new TrendActorsService(warehouse, hydrator, resolvers),
    stickiness: new StickinessActorsService(new StickinessRunner(warehouse, resolvers), hydrator),
    lifecycle: new LifecycleActorsService(new LifecycleRunner(warehouse, resolvers), hydrator),
    retention: new RetentionActorsService(warehouse, hydrator, new RetentionRunner(warehouse, resolvers), new GroupActorRepository(catalogDb)),
    funnel,
    path: new PathActorsService(warehouse, hydrator, new PathRunner(warehouse, resolvers)),
    correlation: new CorrelationActorsService(warehouse, hydrator, funnel),
  };
}
