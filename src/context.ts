import type { Config } from './config.js';
import { AccountRepository } from './accounts/account-repository.js';
import { DefinitionRecorder } from './definitions/definition-recorder.js';
import { KeyRepository } from './keys/key-repository.js';
import { KeyService } from './keys/key-service.js';
import { ProjectRepository } from './projects/project-repository.js';
import { ProjectService } from './projects/project-service.js';
import type { Catalog } from './storage/catalog/catalog.js';
import type { Warehouse } from './storage/warehouse/warehouse.js';

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
}

export function createContext(config: Config, catalog: Catalog, warehouse: Warehouse): AppContext {
  const accounts = new AccountRepository(catalog.db);
  const projectRepository = new ProjectRepository(catalog.db);
  return {
    config,
    catalog,
    warehouse,
    accounts,
    keys: new KeyService(new KeyRepository(catalog.db)),
    projects: new ProjectService(projectRepository),
    projectRepository,
    definitions: new DefinitionRecorder(catalog.db),
  };
}
