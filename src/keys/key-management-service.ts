import { NotFound, PermissionDenied, ValidationError } from '../errors.js';
import type { Project } from '../projects/project.js';
import type { KeyRecord, KeyRepository, StoredKey } from './key-repository.js';
import { validateLabel, type KeyService } from './key-service.js';
import { validateScopes } from './scopes.js';

const SELF_ACCESS_ONLY = 'This action does not support Personal API Key access';

const MAX_PROJECT_ID = 2 ** 31 - 1;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** How the service finds the projects a new key may be limited to. */
export interface OrganizationProjects {
  listForOrganization(organizationId: string, page: { limit: number; offset: number; ids?: number[] }): Promise<{ total: number; projects: Project[] }>;
}

export interface NewKeyInput {
  label: string;
  scopes: string[];
  scopedTeams: number[] | null;
  scopedOrganizations: string[] | null;
}

/**
 * PostHog lets a personal API key read only itself and leaves managing keys to the browser
 * session. Tally has no session, so a key that may do everything in every project stands in
 * for it.
 */
function managesKeys(key: StoredKey): boolean {
  return key.scopes.includes('*') && !(key.scopedTeams && key.scopedTeams.length > 0);
}

function requireManager(key: StoredKey): void {
  if (!managesKeys(key)) throw new PermissionDenied(SELF_ACCESS_ONLY);
}

/** The personal API keys endpoints: a key's own description, and its user's keys. */
export class KeyManagementService {
  constructor(
    private readonly repository: KeyRepository,
    private readonly keys: KeyService,
    private readonly projects: OrganizationProjects,
  ) {}

  /** `@current` or the key's own id is the calling key; other keys of its user need a managing key. */
  async retrieve(key: StoredKey, idParam: string): Promise<KeyRecord> {
    if (idParam === '@current' || idParam === key.id) return key;
    const found = await this.repository.findForUser(key.user.id, idParam);
    if (!found) throw new NotFound();
    requireManager(key);
    return found;
  }

  async list(key: StoredKey): Promise<KeyRecord[]> {
    requireManager(key);
    return this.repository.listForUser(key.user.id);
  }

  /** A new key of the calling key's user, and its value, which is shown this once. */
  async create(key: StoredKey, input: NewKeyInput): Promise<{ record: KeyRecord; value: string }> {
    requireManager(key);
    const label = validateLabel(input.label.trim());
    if (label === '') throw new ValidationError('label', 'This field may not be blank.', 'blank');
    const scopes = validateScopes(input.scopes);
    const scopedTeams = await this.validateScopedTeams(key, input.scopedTeams);
    const scopedOrganizations = validateScopedOrganizations(key, input.scopedOrganizations);
    const { key: value, id } = await this.keys.create({
      userId: key.user.id,
      label,
      scopes,
      scopedTeams,
      scopedOrganizations,
    });
    const record = await this.repository.findForUser(key.user.id, id);
    if (!record) throw new Error(`personal API key ${id} vanished after it was created`);
    return { record, value };
  }

  /** The key stops authenticating at once: every request looks its key up. */
  async delete(key: StoredKey, idParam: string): Promise<void> {
    requireManager(key);
    const id = idParam === '@current' ? key.id : idParam;
    if (!(await this.repository.deleteForUser(key.user.id, id))) throw new NotFound();
  }

  private async validateScopedTeams(key: StoredKey, teams: number[] | null): Promise<number[] | null> {
    if (teams === null || teams.length === 0) return null;
    const ids = [...new Set(teams)];
    // Project ids are 32-bit: a larger number names no project, and PostgreSQL refuses to compare it.
    const plausible = ids.every((id) => Number.isSafeInteger(id) && id > 0 && id <= MAX_PROJECT_ID);
    const found = plausible ? (await this.projects.listForOrganization(key.user.organizationId, { limit: 1, offset: 0, ids })).total : 0;
    if (found !== ids.length) {
      throw new ValidationError('scoped_teams', 'You must be a member of all teams that you are scoping the key to.');
    }
    return ids;
  }
}

function validateScopedOrganizations(key: StoredKey, organizations: string[] | null): string[] | null {
  if (organizations === null || organizations.length === 0) return null;
  for (const organization of organizations) {
    if (!UUID.test(organization)) throw new ValidationError('scoped_organizations', 'Invalid organization UUID');
    if (organization.toLowerCase() !== key.user.organizationId.toLowerCase()) {
      throw new ValidationError('scoped_organizations', 'You must be a member of all organizations that you are scoping the key to.');
    }
  }
  return [...new Set(organizations.map((organization) => organization.toLowerCase()))];
}
