import { AccountRepository } from '../../src/accounts/account-repository.js';
import { loadConfig } from '../../src/config.js';
import { ProjectRepository } from '../../src/projects/project-repository.js';
import { ProjectService } from '../../src/projects/project-service.js';
import { openCatalog } from '../../src/storage/catalog/catalog.js';
import type { TallyServer } from './tally.js';

export interface SecondOrganization {
  /** The bootstrap organization, which now has a second user, ada@example.com. */
  organizationId: string;
  /** Another organization, with its own user bob@example.com and project. */
  otherOrganizationId: string;
  otherProjectId: number;
}

/**
 * Adds a second user to the bootstrap organization and a second organization with a user and a
 * project, in the catalog of a server that is not running (there is no API to create them).
 */
export async function addSecondOrganization(server: TallyServer, otherName: string): Promise<SecondOrganization> {
  const catalog = await openCatalog(loadConfig({ ...server.env, TALLY_DATA_DIR: server.dataDir }));
  try {
    const accounts = new AccountRepository(catalog.db);
    const organizationId = (await accounts.firstOrganization())!.id;
    await accounts.createUser({ email: 'ada@example.com', firstName: 'Ada', organizationId });
    const other = await accounts.createOrganization(otherName);
    await accounts.createUser({ email: 'bob@example.com', firstName: 'Bob', organizationId: other.id });
    const projects = new ProjectService(new ProjectRepository(catalog.db));
    const otherProjectId = (await projects.create({ organizationId: other.id, name: 'Elsewhere', creatorEmail: 'bob@example.com' })).id;
    return { organizationId, otherOrganizationId: other.id, otherProjectId };
  } finally {
    await catalog.close();
  }
}
