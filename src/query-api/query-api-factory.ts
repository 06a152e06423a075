import type { TrendService } from '../insights/trends/trend-service.js';
import { PersonRepository } from '../persons/person-repository.js';
import type { ActionSqlResolver, CohortSqlResolver } from '../query/resolvers.js';
import type { CatalogDb } from '../storage/catalog/catalog.js';
import type { Warehouse } from '../storage/warehouse/warehouse.js';
import { QueryDispatch } from './dispatch.js';
import { EventsQueryKind } from './kinds/events-query.js';
import { HogQLMetadataKind } from './kinds/hogql-metadata.js';
import { HogQLQueryKind } from './kinds/hogql-query.js';
import { TrendsQueryKind } from './kinds/trends-query.js';
import { QueryApi } from './query-api.js';
import type { QueryKind } from './query-kind.js';
import { QueryStatusStore } from './query-status-store.js';

export interface QueryApiDependencies {
  db: CatalogDb;
  warehouse: Warehouse;
  trends: TrendService;
  resolvers: { cohorts: CohortSqlResolver; actions: ActionSqlResolver };
  timeoutSeconds: number;
}

/** The kinds `POST /query/` runs, by `kind`. */
export function queryKinds(dependencies: QueryApiDependencies): Record<string, QueryKind> {
  const limits = { timeoutSeconds: dependencies.timeoutSeconds };
  return {
    HogQLQuery: new HogQLQueryKind(dependencies.warehouse, limits, dependencies.resolvers.cohorts),
    EventsQuery: new EventsQueryKind(dependencies.warehouse, limits, dependencies.db, new PersonRepository(), dependencies.resolvers),
    HogQLMetadata: new HogQLMetadataKind(),
    TrendsQuery: new TrendsQueryKind(dependencies.trends, dependencies.warehouse),
  };
}

export function createQueryApi(dependencies: QueryApiDependencies): QueryApi {
  return new QueryApi(new QueryDispatch(queryKinds(dependencies)), new QueryStatusStore(), dependencies.timeoutSeconds);
}
