import { NotFound, ValidationError } from '../errors.js';
import type { Project } from '../projects/project.js';
import { textOf } from '../util/text.js';
import { nowIso } from '../util/time.js';
import { readDescription, readTags } from './definition-fields.js';
import type { PropertyDefinition, PropertyDefinitionFilter } from './property-definition.js';
import type { PropertyDefinitionChanges, PropertyDefinitionRepository } from './property-definition-repository.js';
import { PROPERTY_TYPES, type PropertyType } from './property-type.js';
import { isUuid } from './query-params.js';

export interface PropertyDefinitionPatch {
  property_type?: unknown;
  description?: unknown;
  tags?: unknown;
}

function readPropertyType(value: unknown): PropertyType | null {
  if (value === null) return null;
  if (typeof value === 'string' && (PROPERTY_TYPES as readonly string[]).includes(value)) return value as PropertyType;
  throw new ValidationError('property_type', `"${textOf(value)}" is not a valid choice.`, 'invalid_choice');
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

  /** Setting `property_type` also sets `is_numerical` (true exactly for Numeric). */
  async update(project: Project, id: string, patch: PropertyDefinitionPatch): Promise<PropertyDefinition> {
    await this.get(project, id);
    const changes: PropertyDefinitionChanges = {};
    if (patch.property_type !== undefined) changes.propertyType = readPropertyType(patch.property_type);
    if (patch.description !== undefined) changes.description = readDescription(patch.description);
    if (patch.tags !== undefined) changes.tags = readTags(patch.tags);
    await this.definitions.update(project.id, id, changes, nowIso());
    return this.get(project, id);
  }
}
