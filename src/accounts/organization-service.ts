import { NotFound } from '../errors.js';
import type { StoredKey } from '../keys/key-repository.js';
import type { Project } from '../projects/project.js';
import type { ProjectRepository } from '../projects/project-repository.js';
import type { ProjectService } from '../projects/project-service.js';
import type { AccountRepository, Organization } from './account-repository.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const PROJECT_PAGE = 1000;

/** An organization with what its answer lists: its active members and its projects. */
export interface OrganizationView {
  organization: Organization;
  memberCount: number;
  projects: Project[];
}

/** A key sees one organization, its user's; every other id names nothing it can see. */
export class OrganizationService {
  constructor(
    private readonly accounts: AccountRepository,
    private readonly projectRepository: ProjectRepository,
    private readonly projects: ProjectService,
  ) {}

  async list(key: StoredKey): Promise<OrganizationView[]> {
    return [await this.view(await this.resolve(key, '@current'))];
  }

  async retrieve(key: StoredKey, organizationParam: string): Promise<OrganizationView> {
    return this.view(await this.resolve(key, organizationParam));
  }

  /** `@current` or the UUID of the key's organization, in any letter case. */
  async resolve(key: StoredKey, organizationParam: string): Promise<Organization> {
    const own = key.user.organizationId;
    const named = organizationParam === '@current' || (UUID.test(organizationParam) && organizationParam.toLowerCase() === own.toLowerCase());
    const organization = named ? await this.accounts.findOrganization(own) : undefined;
    if (!organization) throw new NotFound();
    return organization;
  }

  /**
   * A project of the organization, as /api/projects/:id/ resolves it; a project of another
   * organization is not found under this one.
   */
  async project(key: StoredKey, organizationParam: string, projectParam: string): Promise<Project> {
    const organization = await this.resolve(key, organizationParam);
    if (/^\d{1,15}$/.test(projectParam)) {
      const project = await this.projectRepository.findById(Number(projectParam));
      if (project && project.organizationId !== organization.id) throw new NotFound();
    }
    return this.projects.accessibleProject(key, projectParam);
  }

  async view(organization: Organization): Promise<OrganizationView> {
    const [memberCount, projects] = await Promise.all([this.accounts.countActiveMembers(organization.id), this.allProjects(organization.id)]);
    return { organization, memberCount, projects };
  }

  private async allProjects(organizationId: string): Promise<Project[]> {
    const projects: Project[] = [];
    for (;;) {
      const page = await this.projectRepository.listForOrganization(organizationId, {
        limit: PROJECT_PAGE,
        offset: projects.length,
      });
      projects.push(...page.projects);
      if (page.projects.length < PROJECT_PAGE || projects.length >= page.total) return projects;
    }
  }
}
