import { NotFound, PermissionDenied } from '../errors.js';
import type { StoredKey } from '../keys/key-repository.js';
import type { Project } from '../projects/project.js';
import type { ProjectService } from '../projects/project-service.js';
import type { AccountRepository, User } from './account-repository.js';
import type { OrganizationService, OrganizationView } from './organization-service.js';

/** The user a key belongs to, with the organization and the project the key works in. */
export interface CurrentUser {
  user: User;
  organization: OrganizationView;
  /** What /api/projects/@current/ answers for the key; null when it answers 404. */
  team: Project | null;
}

export class UserService {
  constructor(
    private readonly accounts: AccountRepository,
    private readonly organizations: OrganizationService,
    private readonly projects: ProjectService,
  ) {}

  /** Only `@me` names a user: no key's user is staff, so no key sees another user. */
  async retrieve(key: StoredKey, userParam: string): Promise<CurrentUser> {
    if (userParam !== '@me') {
      throw new PermissionDenied("As a non-staff user you're only allowed to access the `@me` user instance.");
    }
    const user = await this.accounts.findUserById(key.user.id);
    if (!user) throw new NotFound();
    const [organization, team] = await Promise.all([this.organizations.retrieve(key, '@current'), this.currentProject(key)]);
    return { user, organization, team };
  }

  private async currentProject(key: StoredKey): Promise<Project | null> {
    try {
      return await this.projects.accessibleProject(key, '@current');
    } catch (error) {
      if (error instanceof NotFound) return null;
      throw error;
    }
  }
}
