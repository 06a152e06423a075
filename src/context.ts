import type { Config } from './config.js';
import type { CaptureLog } from './capture/capture-log.js';
import { CaptureService } from './capture/capture-service.js';
import { FlagsService } from './flags/flags-service.js';
import { EventWriter } from './capture/event-writer.js';
import { GroupTypeRegistry } from './capture/group-types.js';
import { OutboxRelay } from './storage/warehouse/outbox.js';
import { ConsistentWarehouse } from './storage/warehouse/consistent-warehouse.js';
import { IngestionConsumer } from './capture/ingestion-consumer.js';
import { IngestionWarningRepository } from './capture/ingestion-warning-repository.js';
import { IngestionWarningService } from './capture/ingestion-warning-service.js';
import { Mutex } from './util/mutex.js';
import { AccountRepository } from './accounts/account-repository.js';
import { DefinitionRecorder } from './definitions/definition-recorder.js';
import { EventDefinitionRepository } from './definitions/event-definition-repository.js';
import { EventDefinitionService } from './definitions/event-definition-service.js';
import { EventVolumes } from './definitions/event-volumes.js';
import { PropertyDefinitionRepository } from './definitions/property-definition-repository.js';
import { PropertyDefinitionService } from './definitions/property-definition-service.js';
import { KeyRepository } from './keys/key-repository.js';
import { KeyService } from './keys/key-service.js';
import { ProjectRepository } from './projects/project-repository.js';
import { ProjectService } from './projects/project-service.js';
import type { Catalog } from './storage/catalog/catalog.js';
import type { Warehouse } from './storage/warehouse/warehouse.js';
import { TrendService } from './insights/trends/trend-service.js';
import { createPersonsApi, type PersonsApi } from './persons/persons-api.js';
import { ActionRepository } from './actions/action-repository.js';
import { ActionService } from './actions/action-service.js';
import { CohortRepository } from './cohorts/cohort-repository.js';
import { CohortService } from './cohorts/cohort-service.js';
import { CohortSqlCompiler } from './cohorts/cohort-sql.js';
import { PersonRepository } from './persons/person-repository.js';
import { createAnalysisActors, type AnalysisActors } from './insights/actors/analysis-actors.js';

/** The composition root: every service, wired to the two stores. */
export interface AppContext {
  config: Config;
  catalog: Catalog;
  warehouse: Warehouse;
  accounts: AccountRepository;
  keys: KeyService;
  projects: ProjectService;
  projectRepository: ProjectRepository;
  /** Records event and property definitions for ingested events. */
  definitions: DefinitionRecorder;
  eventDefinitions: EventDefinitionService;
  propertyDefinitions: PropertyDefinitionService;
  groupTypes: GroupTypeRegistry;
  /** Keeps the warehouse replicas of catalog rows in step. */
  relay: OutboxRelay;
  /** Processes acknowledged captures behind the answer; every read awaits it. */
  ingestion: IngestionConsumer;
  /** The warnings list of the API. */
  ingestionWarningService: IngestionWarningService;
  /** Serialises every write to persons, from capture and from the persons API. */
  personWriteLock: Mutex;
  capture: CaptureService;
  flags: FlagsService;
  trends: TrendService;
  persons: PersonsApi;
  actions: ActionService;
  cohorts: CohortService;
  /** The persons analysis endpoints (actors of trends, funnels, retention, …). */
  actors: AnalysisActors;
}

export function createContext(config: Config, catalog: Catalog, storedWarehouse: Warehouse, captureLog: CaptureLog): AppContext {
  const accounts = new AccountRepository(catalog.db);
  const projectRepository = new ProjectRepository(catalog.db);
  const definitions = new DefinitionRecorder(catalog.db);
  const groupTypes = new GroupTypeRegistry();
  const relay = new OutboxRelay(catalog.db, storedWarehouse, () => catalog.syncCommits());
  const personWriteLock = new Mutex();
  const ingestionWarnings = new IngestionWarningRepository(catalog.dialect);
  const ingestion = new IngestionConsumer({
    catalog,
    log: captureLog,
    relay,
    writer: new EventWriter(storedWarehouse),
    warehouseAnswers: async () => {
      await storedWarehouse.query('SELECT 1');
    },
    groupTypes,
    definitions,
    warnings: ingestionWarnings,
    personWriteLock,
    onFailure: (error) => console.error('processing captured events failed; Tally retries by itself', error),
  });
  // Everything below reads through this, so every read sees every acknowledged write.
  const warehouse = new ConsistentWarehouse(storedWarehouse, { flush: () => ingestion.catchUp() });
  const capture = new CaptureService(captureLog, projectRepository, ingestion);
  const actionRepository = new ActionRepository(catalog.db);
  const cohortRepository = new CohortRepository(catalog.db);
  // Compiles cohorts and actions to warehouse SQL at query time, for every insight and person query.
  const cohortSql = new CohortSqlCompiler(cohortRepository, actionRepository);
  return {
    config,
    catalog,
    warehouse,
    accounts,
    keys: new KeyService(new KeyRepository(catalog.db)),
    projects: new ProjectService(projectRepository),
    projectRepository,
    definitions,
    eventDefinitions: new EventDefinitionService(
      new EventDefinitionRepository(catalog.db, catalog.dialect),
      new EventVolumes(warehouse),
      definitions,
    ),
    propertyDefinitions: new PropertyDefinitionService(new PropertyDefinitionRepository(catalog.db, catalog.dialect)),
    groupTypes,
    relay,
    ingestion,
    ingestionWarningService: new IngestionWarningService(catalog.db, ingestionWarnings),
    personWriteLock,
    capture,
    flags: new FlagsService(projectRepository),
    trends: new TrendService(warehouse, { cohorts: cohortSql, actions: cohortSql.actions }),
    persons: createPersonsApi(catalog, warehouse, relay, personWriteLock, { cohorts: cohortSql, actions: cohortSql.actions }),
    actions: new ActionService(actionRepository),
    cohorts: new CohortService(catalog.db, cohortRepository, actionRepository, new PersonRepository(), cohortSql, warehouse, relay),
    actors: createAnalysisActors(catalog.db, warehouse, { cohorts: cohortSql, actions: cohortSql.actions }),
  };
}
