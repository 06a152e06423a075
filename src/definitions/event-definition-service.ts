import { NotFound, ValidationError } from '../errors.js';
import type { Project } from '../projects/project.js';
import { nowIso } from '../util/time.js';
import type { DefinitionRecorder } from './definition-recorder.js';
import { pythonTypeName, readBooleanField, readDescription, readTags } from './definition-fields.js';
import type { EventDefinition, EventDefinitionFilter } from './event-definition.js';
import type { EventDefinitionChanges, EventDefinitionRepository } from './event-definition-repository.js';
import type { EventVolumes } from './event-volumes.js';
import { isUuid } from '../persons/person-id.js';

/** A definition as the API shows it, with its event count over the last 30 days. */
export interface EventDefinitionView {
  definition: EventDefinition;
  volume30Day: number;
}

export interface EventDefinitionPatch {
  description?: unknown;
  tags?: unknown;
  verified?: unknown;
  hidden?: unknown;
  owner?: unknown;
}

export class EventDefinitionService {
  constructor(
    private readonly definitions: EventDefinitionRepository,
    private readonly volumes: EventVolumes,
    private readonly recorder: DefinitionRecorder,
  ) {}

  async list(project: Project, filter: EventDefinitionFilter, page: { limit: number; offset: number }) {
    const { total, definitions } = await this.definitions.list(project.id, filter, page);
    return { total, views: await this.withVolumes(project, definitions) };
  }

  async get(project: Project, id: string): Promise<EventDefinitionView> {
    const [view] = await this.withVolumes(project, [await this.find(project, id)]);
    return view!;
  }

  /**
   * PostHog's rules: hiding un-verifies, verifying un-hides and stamps who and when (re-verifying
   * keeps the first stamp), un-verifying clears the stamp; asking for both at once is refused.
   */
  async update(project: Project, id: string, patch: EventDefinitionPatch, userId: number): Promise<EventDefinitionView> {
    const current = await this.find(project, id);
    const changes: EventDefinitionChanges = {};
    if (patch.description !== undefined) changes.description = readDescription(patch.description);
    if (patch.tags !== undefined) changes.tags = readTags(patch.tags);
    const verified = patch.verified === undefined ? undefined : readBooleanField(patch.verified, 'verified');
    const hidden = patch.hidden === undefined ? undefined : readBooleanField(patch.hidden, 'hidden');
    if (patch.owner !== undefined) changes.ownerId = await this.readOwner(project, patch.owner);
    if (verified && hidden) throw new ValidationError(null, 'An event cannot be both hidden and verified');

    const now = nowIso();
    if (hidden !== undefined) changes.hidden = hidden;
    if (hidden) Object.assign(changes, unverified());
    if (verified === true) {
      changes.hidden = false;
      if (!current.verified) Object.assign(changes, { verified: true, verifiedAt: now, verifiedById: userId });
    } else if (verified === false) {
      Object.assign(changes, unverified());
    }

    await this.definitions.update(project.id, id, changes, now);
    return this.get(project, id);
  }

  async delete(project: Project, id: string): Promise<void> {
    const definition = await this.find(project, id);
    if (!(await this.definitions.delete(project.id, id))) throw new NotFound();
    this.recorder.forgetEvent(project.id, definition.name);
  }

  private async find(project: Project, id: string): Promise<EventDefinition> {
    const definition = isUuid(id) ? await this.definitions.find(project.id, id) : undefined;
    if (!definition) throw new NotFound();
    return definition;
  }

  private async readOwner(project: Project, value: unknown): Promise<number | null> {
    if (value === null) return null;
    const userId = typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : value;
    if (typeof userId !== 'number' || !Number.isSafeInteger(userId)) {
      throw new ValidationError('owner', `Incorrect type. Expected pk value, received ${pythonTypeName(value)}.`, 'incorrect_type');
    }
    if (!(await this.definitions.findUserInOrganization(userId, project.organizationId))) {
      throw new ValidationError('owner', `Invalid pk "${userId}" - object does not exist.`, 'does_not_exist');
    }
    return userId;
  }

  private async withVolumes(project: Project, definitions: EventDefinition[]): Promise<EventDefinitionView[]> {
    const volumes = await this.volumes.last30Days(
      project.id,
      definitions.map((definition) => definition.name),
    );
    return definitions.map((definition) => ({ definition, volume30Day: volumes.get(definition.name) ?? 0 }));
  }
}

function unverified(): EventDefinitionChanges {
  return { verified: false, verifiedAt: null, verifiedById: null };
}
