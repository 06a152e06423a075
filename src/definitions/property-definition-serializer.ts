import type { PropertyDefinition } from './property-definition.js';

export function serializePropertyDefinition(definition: PropertyDefinition) {
  return {
    id: definition.id,
    name: definition.name,
    description: definition.description,
    tags: definition.tags,
    is_numerical: definition.isNumerical,
    property_type: definition.propertyType,
    updated_at: definition.updatedAt,
    is_seen_on_filtered_events: definition.isSeenOnFilteredEvents,
    hidden: definition.hidden,
    verified: definition.verified,
  };
}
