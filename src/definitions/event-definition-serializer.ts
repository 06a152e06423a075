import type { UserSummary } from './event-definition.js';
import type { EventDefinitionView } from './event-definition-service.js';

export function serializeUser(user: UserSummary | null) {
  return user && { id: user.id, uuid: user.uuid, first_name: user.firstName, last_name: '', email: user.email };
}

/**
 * PostHog's enterprise event definition record. `query_usage_30_day` is always null: Tally does
 * not count how often insights query an event.
 */
export function serializeEventDefinition({ definition, volume30Day }: EventDefinitionView) {
  return {
    id: definition.id,
    name: definition.name,
    owner: serializeUser(definition.owner),
    description: definition.description,
    tags: definition.tags,
    created_at: definition.createdAt,
    updated_at: definition.updatedAt,
    last_seen_at: definition.lastSeenAt,
    verified: definition.verified,
    verified_at: definition.verifiedAt,
    verified_by: serializeUser(definition.verifiedBy),
    hidden: definition.hidden,
    is_action: false,
    volume_30_day: volume30Day,
    query_usage_30_day: null,
  };
}
