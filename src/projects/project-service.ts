import type { StoredKey } from '../keys/key-repository.js';
import { NotFound, PermissionDenied, ValidationError } from '../errors.js';
import { newProjectToken } from '../util/random.js';
import { textOf } from '../util/text.js';
import type { Project } from './project.js';
import type { ProjectChanges, ProjectRepository } from './project-repository.js';
import { validateTestAccountFilters, type PropertyFilterInput } from './test-account-filters.js';
import { normaliseTimezone } from './timezone.js';

const GENERIC_EMAIL_DOMAINS = new Set([
  'gmail.com',
  'googlemail.com',
  'yahoo.com',
  'hotmail.com',
  'outlook.com',
  'live.com',
  'icloud.com',
  'me.com',
  'aol.com',
  'protonmail.com',
  'proton.me',
]);

/** PostHog's defaults: exclude the creator's company domain and local hosts. */
export function defaultTestAccountFilters(creatorEmail: string): PropertyFilterInput[] {
  const filters: PropertyFilterInput[] = [];
  const domain = creatorEmail.split('@')[1]?.toLowerCase();
  if (domain && !GENERIC_EMAIL_DOMAINS.has(domain)) {
    filters.push({ key: 'email', value: `@${domain}`, operator: 'not_icontains', type: 'person' });
  }
  filters.push({ key: '$host', value: '^(localhost|127\\.0\\.0\\.1)($|:)', operator: 'not_regex', type: 'event' });
  return filters;
}

export interface ProjectPatch {
  name?: unknown;
  timezone?: unknown;
  week_start_day?: unknown;
  test_account_filters?: unknown;
  person_display_name_properties?: unknown;
}

export class ProjectService {
  constructor(private readonly projects: ProjectRepository) {}

  async create(input: { organizationId: string; name: string; timezone?: string; apiToken?: string; creatorEmail: string }): Promise<Project> {
    const name = validateName(input.name);
    const timezone = validateTimezone(input.timezone ?? 'UTC');
    return this.projects.create({
      organizationId: input.organizationId,
      name,
      timezone,
      apiToken: input.apiToken ?? newProjectToken(),
      testAccountFilters: defaultTestAccountFilters(input.creatorEmail),
    });
  }

  async list(key: StoredKey, page: { limit: number; offset: number }) {
    return this.projects.listForOrganization(key.user.organizationId, page);
  }

  /**
   * The project a request names, after the access rules: unknown → 404, another organization →
   * 403, outside the key's scoped_teams → 403. `@current` is the user's first project.
   */
  async accessibleProject(key: StoredKey, projectIdParam: string): Promise<Project> {
    let project: Project | undefined;
    if (projectIdParam === '@current') {
      const { projects } = await this.projects.listForOrganization(key.user.organizationId, {
        limit: 1,
        offset: 0,
        ids: key.scopedTeams ?? undefined,
      });
      project = projects[0];
    } else if (/^\d{1,15}$/.test(projectIdParam)) {
      project = await this.projects.findById(Number(projectIdParam));
    }
    if (!project) throw new NotFound();
    if (project.organizationId !== key.user.organizationId) {
      throw new PermissionDenied("You don't have access to the project.");
    }
    if (key.scopedTeams && key.scopedTeams.length > 0 && !key.scopedTeams.includes(project.id)) {
      throw new PermissionDenied(`API key does not have access to the requested project: ID ${project.id}.`);
    }
    return project;
  }

  async update(project: Project, patch: ProjectPatch): Promise<Project> {
    const changes: ProjectChanges = {};
    if (patch.name !== undefined) changes.name = validateName(patch.name);
    if (patch.timezone !== undefined) changes.timezone = validateTimezone(patch.timezone);
    if (patch.week_start_day !== undefined) {
      if (patch.week_start_day !== null && patch.week_start_day !== 0 && patch.week_start_day !== 1) {
        throw new ValidationError('week_start_day', `"${textOf(patch.week_start_day)}" is not a valid choice.`, 'invalid_choice');
      }
      changes.weekStartDay = patch.week_start_day;
    }
    if (patch.test_account_filters !== undefined) {
      changes.testAccountFilters = validateTestAccountFilters(patch.test_account_filters);
    }
    if (patch.person_display_name_properties !== undefined) {
      changes.personDisplayNameProperties = validateDisplayNameProperties(patch.person_display_name_properties);
    }
    const updated = await this.projects.update(project.id, changes);
    if (!updated) throw new NotFound();
    return updated;
  }
}

function validateName(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new ValidationError('name', 'This field may not be blank.', 'blank');
  }
  if (value.length > 200) throw new ValidationError('name', 'Ensure this field has no more than 200 characters.', 'max_length');
  return value;
}

function validateTimezone(value: unknown): string {
  const zone = typeof value === 'string' ? normaliseTimezone(value) : null;
  if (zone === null) {
    throw new ValidationError('timezone', `"${textOf(value)}" is not a valid choice.`, 'invalid_choice');
  }
  return zone;
}

function validateDisplayNameProperties(value: unknown): string[] | null {
  if (value === null) return null;
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) {
    throw new ValidationError('person_display_name_properties', 'Expected a list of property names.', 'not_a_list');
  }
  return value as string[];
}
