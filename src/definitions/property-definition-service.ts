import { NotFound, ValidationError } from '../errors.js';
import type { Project } from '../projects/project.js';
import { textOf } from '../util/text.js';
import { nowIso } from '../util/time.js';
import { readDescription, readTags } from './definition-fields.js';
import type { PropertyDefinition, PropertyDefinitionFilter } from './property-definition.js';
import type { PropertyDefinitionChanges, PropertyDefinitionRepository } from './property-definition-repository.js';
import { PROPERTY_TYPES, type PropertyType } from './property-type.js';
import { readFlag } from '../util/request-params.js';
import { isUuid } from '../persons/person-id.js';

export interface PropertyDefinitionPatch {
  property_type?: unknown;
  description?: unknown;
  tags?: unknown;
  hidden?: unknown;
  verified?: unknown;
}

function readPropertyType(value: unknown): PropertyType | null {
  if (value === null) return null;
  if (typeof value === 'string' && (PROPERTY_TYPES as readonly string[]).includes(value)) return value as PropertyType;
  throw new ValidationError('property_type', `"${textOf(value)}" is not a valid choice.`, 'invalid_choice');
}

/** A boolean field of a PATCH body; present but null or not a boolean is a 400 naming it. */
function readPatchFlag(value: unknown, attr: 'hidden' | 'verified'): boolean | undefined {
  if (value === undefined) return undefined;
  const flag = readFlag(value, attr);
  if (flag === undefined) throw new ValidationError(attr, 'Must be a valid boolean.', 'invalid');
  return flag;
}

export class PropertyDefinitionService {
  constructor(private readonly definitions: PropertyDefinitionRepository) {}

  list(project: Project, filter: PropertyDefinitionFilter, page: { limit: number; offset: number }) {
    return this.definitions.list(project.id, filter, page);
  }

  async get(project: Project, id: string): Promise<PropertyDefinition> {
    const definition = isUuid(id) ? await this.definitions.find(project.id, id) : undefined;
    if (!definition) throw new NotFound();
    return definition;
  }

  /**
   * Setting `property_type` also sets `is_numerical` (true exactly for Numeric). Hiding a property
   * un-verifies it and verifying un-hides it, as PostHog does; asking for both at once is refused.
   */
  async update(project: Project, id: string, patch: PropertyDefinitionPatch): Promise<PropertyDefinition> {
    await this.get(project, id);
    const changes: PropertyDefinitionChanges = {};
    if (patch.property_type !== undefined) changes.propertyType = readPropertyType(patch.property_type);
    if (patch.description !== undefined) changes.description = readDescription(patch.description);
    if (patch.tags !== undefined) changes.tags = readTags(patch.tags);
    const hidden = readPatchFlag(patch.hidden, 'hidden');
    const verified = readPatchFlag(patch.verified, 'verified');
    if (hidden && verified) throw new ValidationError(null, 'A property cannot be both hidden and verified');
    if (hidden !== undefined) changes.hidden = hidden;
    if (verified !== undefined) changes.verified = verified;
    if (hidden) changes.verified = false;
    if (verified) changes.hidden = false;
    await this.definitions.update(project.id, id, changes, nowIso());
    return this.get(project, id);
  }
}
