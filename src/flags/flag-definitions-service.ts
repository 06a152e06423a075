import { InvalidApiKey } from '../capture/capture-errors.js';
import { AuthenticationFailed, NotAuthenticated, PermissionDenied, RequiredFieldError } from '../errors.js';
import type { KeyService } from '../keys/key-service.js';
import { grantsScope } from '../keys/scopes.js';
import type { ProjectRepository } from '../projects/project-repository.js';
import type { ProjectService } from '../projects/project-service.js';
import type { GroupRepository } from '../groups/group-repository.js';

export interface FlagDefinitionsRequest {
  /** The project token of the `token` query parameter. */
  token: string | undefined;
  /** The personal API key of the Authorization header. */
  personalApiKey: string | null;
}

export interface FlagDefinitions {
  flags: unknown[];
  /** Group type index (as text) → group type, for flags that aggregate by group. */
  group_type_mapping: Record<string, string>;
  cohorts: Record<string, unknown>;
}

/**
 * The flag definitions server SDKs poll for local evaluation once given a personal API key.
 * Tally has no feature flags, so the list is empty — as /flags answers no flag — and the SDKs
 * find nothing to evaluate instead of logging errors.
 */
export class FlagDefinitionsService {
  constructor(
    private readonly keys: KeyService,
    private readonly projects: ProjectService,
    private readonly projectRepository: ProjectRepository,
    private readonly groups: Pick<GroupRepository, 'types'>,
  ) {}

  async definitions(request: FlagDefinitionsRequest): Promise<FlagDefinitions> {
    const token = request.token?.trim();
    if (!token) throw new RequiredFieldError('token');
    const project = token.startsWith('phx_') ? undefined : await this.projectRepository.findByToken(token);
    if (!project) throw new InvalidApiKey();

    if (request.personalApiKey === null) throw new NotAuthenticated();
    const key = await this.keys.authenticate(request.personalApiKey);
    if (!key) throw new AuthenticationFailed('Personal API key found in request Authorization header is invalid.');
    if (!grantsScope(key.scopes, 'feature_flag:read')) throw new PermissionDenied("API key missing required scope 'feature_flag:read'");
    await this.projects.accessibleProject(key, String(project.id));

    const groupTypes = await this.groups.types(project.id);
    return {
      flags: [],
      group_type_mapping: Object.fromEntries(groupTypes.map(({ groupTypeIndex, groupType }) => [String(groupTypeIndex), groupType])),
      cohorts: {},
    };
  }
}
