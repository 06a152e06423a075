import { MaterializedProperties, PERSON_PROPERTY_COLUMNS } from '../query/materialized-properties.js';
import type { SqlResolvers } from '../query/resolvers.js';
import type { Catalog } from '../storage/catalog/catalog.js';
import type { OutboxRelay } from '../storage/warehouse/outbox.js';
import { OutboxRepository } from '../storage/warehouse/outbox-repository.js';
import type { Warehouse } from '../storage/warehouse/warehouse.js';
import type { Mutex } from '../util/mutex.js';
import { ActivityLogRepository } from './activity-log-repository.js';
import { DeletionStatusService } from './deletion-status-service.js';
import { DeletionTaskRepository } from './deletion-task-repository.js';
import { PersonActivityService } from './person-activity-service.js';
import { PersonHydrator } from './person-hydrator.js';
import { PersonListService } from './person-list-service.js';
import type { PersonRepository } from './person-repository.js';
import { PersonService } from './person-service.js';
import { PersonValuesService } from './person-values-service.js';
import { PersonWriteService } from './person-write-service.js';
import { PropertiesTimelineService } from './properties-timeline-service.js';
import type { Logger } from '../logger.js';

/** Every service behind `/api/projects/:project_id/persons`. */
export interface PersonsApi {
  read: PersonService;
  list: PersonListService;
  writes: PersonWriteService;
  activity: PersonActivityService;
  deletionStatus: DeletionStatusService;
  values: PersonValuesService;
  timeline: PropertiesTimelineService;
}

export function createPersonsApi(
  catalog: Catalog,
  persons: PersonRepository,
  warehouse: Warehouse,
  relay: OutboxRelay,
  personWriteLock: Mutex,
  resolvers: SqlResolvers,
  logger: Logger,
): PersonsApi {
  const activityLog = new ActivityLogRepository(catalog.db);
  const deletionTasks = new DeletionTaskRepository(catalog.db);
  const read = new PersonService(persons);
  const materialized = new MaterializedProperties(warehouse, PERSON_PROPERTY_COLUMNS, (error) =>
    logger.error({ err: error }, 'a person property column could not be listed, added or filled; filters on it read the JSON meanwhile'),
  );
  return {
    read,
    list: new PersonListService(catalog.db, persons, new PersonHydrator(persons), warehouse, materialized, resolvers.cohorts),
    writes: new PersonWriteService(catalog, persons, activityLog, deletionTasks, new OutboxRepository(catalog.db, catalog.dialect), relay, personWriteLock),
    activity: new PersonActivityService(activityLog, read),
    deletionStatus: new DeletionStatusService(deletionTasks),
    values: new PersonValuesService(warehouse),
    timeline: new PropertiesTimelineService(read, persons, warehouse, resolvers.actions),
  };
}
