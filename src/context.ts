import type { Config } from './config.js';
import { createLogger, type Logger } from './logger.js';
import type { CaptureLog } from './capture/capture-log.js';
import { CaptureService } from './capture/capture-service.js';
import { FlagsService } from './flags/flags-service.js';
import { FlagDefinitionsService } from './flags/flag-definitions-service.js';
import { RemoteConfigService } from './browser-sdk/remote-config-service.js';
import { SdkBundles } from './browser-sdk/sdk-bundles.js';
import { EventWriter } from './capture/event-writer.js';
import { GroupTypeRegistry } from './capture/group-type-registry.js';
import { OutboxRelay } from './storage/warehouse/outbox.js';
import { OutboxRepository } from './storage/warehouse/outbox-repository.js';
import { ConsistentWarehouse } from './storage/warehouse/consistent-warehouse.js';
import { IngestionConsumer } from './capture/ingestion-consumer.js';
import { IngestionHealth } from './capture/ingestion-health.js';
import { IngestionWarningRepository } from './capture/ingestion-warning-repository.js';
import { IngestionWarningService } from './capture/ingestion-warning-service.js';
import { Mutex } from './util/mutex.js';
import { AccountRepository } from './accounts/account-repository.js';
import { OrganizationService } from './accounts/organization-service.js';
import { UserService } from './accounts/user-service.js';
import { DefinitionRecorder } from './definitions/definition-recorder.js';
import { EventDefinitionRepository } from './definitions/event-definition-repository.js';
import { EventDefinitionService } from './definitions/event-definition-service.js';
import { EventVolumes } from './definitions/event-volumes.js';
import { PropertyDefinitionRepository } from './definitions/property-definition-repository.js';
import { PropertyDefinitionService } from './definitions/property-definition-service.js';
import { KeyRepository } from './keys/key-repository.js';
import { KeyService } from './keys/key-service.js';
import { KeyManagementService } from './keys/key-management-service.js';
import { ProjectRepository } from './projects/project-repository.js';
import { ProjectService } from './projects/project-service.js';
import type { Catalog } from './storage/catalog/catalog.js';
import type { ProcessCoordination } from './storage/catalog/process-coordination.js';
import type { Warehouse } from './storage/warehouse/warehouse.js';
import { TrendService } from './insights/trends/trend-service.js';
import { FunnelRunner } from './insights/funnels/funnel-runner.js';
import { CorrelationRunner } from './insights/funnels/correlation-runner.js';
import { LifecycleRunner } from './insights/lifecycle/lifecycle-runner.js';
import { StickinessRunner } from './insights/stickiness/stickiness-runner.js';
import { RetentionRunner } from './insights/retention/retention-runner.js';
import { PathRunner } from './insights/paths/path-runner.js';
import { createPersonsApi, type PersonsApi } from './persons/persons-api.js';
import { ActionRepository } from './actions/action-repository.js';
import { ActionService } from './actions/action-service.js';
import { CohortRepository } from './cohorts/cohort-repository.js';
import { CohortService } from './cohorts/cohort-service.js';
import { EVENT_PROPERTY_COLUMNS, MaterializedProperties } from './query/materialized-properties.js';
import { CohortSqlCompiler } from './cohorts/cohort-sql.js';
import { PersonRepository } from './persons/person-repository.js';
import { createAnalysisActors, type AnalysisActors } from './insights/actors/analysis-actors.js';
import { createSavedInsightsApi } from './saved-insights/saved-insights-api.js';
import type { SavedInsightService } from './saved-insights/saved-insight-service.js';
import type { DashboardService } from './dashboards/dashboard-service.js';
import type { AnnotationService } from './annotations/annotation-service.js';
import { EventListService } from './events/event-list-service.js';
import { EventRepository } from './events/event-repository.js';
import { GroupRepository } from './groups/group-repository.js';
import { GroupService } from './groups/group-service.js';
import { createQueryApi } from './query-api/query-api-factory.js';
import type { QueryApi } from './query-api/query-api.js';
import { StoreBackup } from './backup/store-backup.js';
import { FileCaptureLog } from './capture/spool/file-capture-log.js';
import { ChdbWarehouse } from './storage/warehouse/chdb-warehouse.js';

/** The composition root: every service, wired to the two stores. */
export interface AppContext {
  config: Config;
  logger: Logger;
  catalog: Catalog;
  warehouse: Warehouse;
  /** The warehouse without the wait for ingestion: for readings of the warehouse itself (its size). */
  storedWarehouse: Warehouse;
  /** How this process shares work with others on the same stores. */
  coordination: ProcessCoordination;
  accounts: AccountRepository;
  keys: KeyService;
  /** The personal API keys endpoints. */
  personalApiKeys: KeyManagementService;
  organizations: OrganizationService;
  users: UserService;
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
  /** Whether acknowledged events move into the warehouse, for /_health and the metrics. */
  ingestionHealth: IngestionHealth;
  /** The warnings list of the API. */
  ingestionWarningService: IngestionWarningService;
  /** Serialises every write to persons, from capture and from the persons API. */
  personWriteLock: Mutex;
  capture: CaptureService;
  flags: FlagsService;
  /** Flag definitions for the server SDKs' local evaluation. */
  flagDefinitions: FlagDefinitionsService;
  /** posthog-js's remote config, and the bundles it loads from Tally. */
  remoteConfig: RemoteConfigService;
  sdkBundles: SdkBundles;
  trends: TrendService;
  /** Legacy funnels (steps, trends, time to convert), the runner behind /insights/funnel/. */
  funnels: FunnelRunner;
  /** Funnel correlation, the runner behind /insights/funnel/correlation/. */
  funnelCorrelation: CorrelationRunner;
  /** Legacy lifecycle, served by /insights/trend/ with insight=LIFECYCLE. */
  lifecycle: LifecycleRunner;
  /** Legacy stickiness, served by /insights/trend/ with insight=STICKINESS. */
  stickiness: StickinessRunner;
  /** Legacy retention tables, the runner behind /insights/retention/. */
  retention: RetentionRunner;
  /** Legacy paths, the runner behind /insights/path/. */
  paths: PathRunner;
  savedInsights: SavedInsightService;
  dashboards: DashboardService;
  annotations: AnnotationService;
  persons: PersonsApi;
  actions: ActionService;
  cohorts: CohortService;
  /** The persons analysis endpoints (actors of trends, funnels, retention, …). */
  actors: AnalysisActors;
  /** The events list and single events. */
  events: EventListService;
  /** Groups and group types, as capture records them. */
  groups: GroupService;
  /** PostHog's query API: POST /query/ with HogQL, events and insight kinds. */
  query: QueryApi;
  /** Backups of the embedded stores while serving; null unless all three are embedded. */
  backup: StoreBackup | null;
}

export function createContext(
  config: Config,
  catalog: Catalog,
  storedWarehouse: Warehouse,
  captureLog: CaptureLog,
  coordination: ProcessCoordination,
): AppContext {
  const logger = createLogger(config.logLevel);
  const accounts = new AccountRepository(catalog.db);
  const projectRepository = new ProjectRepository(catalog.db);
  const keyRepository = new KeyRepository(catalog.db);
  const keys = new KeyService(keyRepository);
  const projects = new ProjectService(projectRepository);
  const organizations = new OrganizationService(accounts, projectRepository, projects);
  const eventDefinitionRepository = new EventDefinitionRepository(catalog.db, catalog.dialect);
  const propertyDefinitionRepository = new PropertyDefinitionRepository(catalog.db, catalog.dialect);
  const definitions = new DefinitionRecorder(catalog.db, eventDefinitionRepository, propertyDefinitionRepository);
  const groupTypes = new GroupTypeRegistry();
  const outbox = new OutboxRepository(catalog.db, catalog.dialect);
  const relay = new OutboxRelay(outbox, storedWarehouse, () => catalog.syncCommits(), coordination.shared, logger);
  const personWriteLock = new Mutex();
  const ingestionWarnings = new IngestionWarningRepository(catalog.db, catalog.dialect);
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
    coordination,
    logger,
    onFailure: (error) => logger.error({ err: error }, 'processing captured events failed; Tally retries by itself'),
  });
  // Everything below reads through this, so every read sees every acknowledged write.
  const warehouse = new ConsistentWarehouse(storedWarehouse, { flush: () => ingestion.catchUp() });
  const capture = new CaptureService(captureLog, projectRepository, ingestion);
  const actionRepository = new ActionRepository(catalog.db);
  const cohortRepository = new CohortRepository(catalog.db, outbox);
  // Compiles cohorts and actions to warehouse SQL at query time, for every insight and person query.
  const cohortSql = new CohortSqlCompiler(cohortRepository, actionRepository);
  const eventColumns = new MaterializedProperties(storedWarehouse, EVENT_PROPERTY_COLUMNS, (error) =>
    logger.error({ err: error }, 'an event property column could not be listed, added or filled; reads of it use the JSON meanwhile'),
  );
  const resolvers = { cohorts: cohortSql, actions: cohortSql.actions, eventColumns };
  const trends = new TrendService(warehouse, resolvers);
  const funnels = new FunnelRunner(warehouse, resolvers);
  const funnelCorrelation = new CorrelationRunner(warehouse, funnels);
  const runners = {
    funnels,
    lifecycle: new LifecycleRunner(warehouse, resolvers),
    stickiness: new StickinessRunner(warehouse, resolvers),
    retention: new RetentionRunner(warehouse, resolvers),
    paths: new PathRunner(warehouse, resolvers),
  };
  const personRepository = new PersonRepository(catalog.db);
  const persons = createPersonsApi(catalog, personRepository, warehouse, relay, personWriteLock, resolvers, logger);
  const actors = createAnalysisActors(catalog.db, personRepository, warehouse, resolvers);
  return {
    config,
    logger,
    catalog,
    warehouse,
    storedWarehouse,
    coordination,
    accounts,
    keys,
    personalApiKeys: new KeyManagementService(keyRepository, keys, projectRepository),
    organizations,
    users: new UserService(accounts, organizations, projects),
    projects,
    projectRepository,
    definitions,
    eventDefinitions: new EventDefinitionService(eventDefinitionRepository, new EventVolumes(warehouse), definitions),
    propertyDefinitions: new PropertyDefinitionService(propertyDefinitionRepository),
    groupTypes,
    relay,
    ingestion,
    ingestionHealth: new IngestionHealth(captureLog, ingestion.stats, config.ingestionStallSeconds),
    ingestionWarningService: new IngestionWarningService(ingestionWarnings),
    personWriteLock,
    capture,
    flags: new FlagsService(projectRepository),
    flagDefinitions: new FlagDefinitionsService(keys, projects, projectRepository, new GroupRepository(catalog.db, catalog.dialect)),
    remoteConfig: new RemoteConfigService(projectRepository),
    sdkBundles: new SdkBundles(),
    trends,
    ...runners,
    funnelCorrelation,
    ...createSavedInsightsApi(catalog, warehouse, trends, runners),
    persons,
    actions: new ActionService(actionRepository),
    cohorts: new CohortService(cohortRepository, actionRepository, personRepository, cohortSql, warehouse, relay),
    actors,
    events: new EventListService(new EventRepository(warehouse), personRepository, resolvers),
    groups: new GroupService(new GroupRepository(catalog.db, catalog.dialect)),
    query: createQueryApi({
      persons: personRepository,
      warehouse,
      trends,
      funnels,
      funnelCorrelation,
      retention: runners.retention,
      lifecycle: runners.lifecycle,
      stickiness: runners.stickiness,
      paths: runners.paths,
      actors,
      personList: persons.list,
      resolvers,
      timeoutSeconds: config.queryTimeoutSeconds,
    }),
    backup: embeddedBackup(config, catalog, storedWarehouse, captureLog, ingestion, relay, coordination),
  };
}

function embeddedBackup(
  config: Config,
  catalog: Catalog,
  warehouse: Warehouse,
  log: CaptureLog,
  ingestion: IngestionConsumer,
  relay: OutboxRelay,
  coordination: ProcessCoordination,
): StoreBackup | null {
  const { backupTo } = catalog;
  if (backupTo === null || !(warehouse instanceof ChdbWarehouse) || !(log instanceof FileCaptureLog)) return null;
  return new StoreBackup({ dataDir: config.dataDir, backupCatalog: backupTo, warehouse, log, ingestion, relay, coordination });
}
