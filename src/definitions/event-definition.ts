/** A user shown on a definition (owner, verifier). */
export interface UserSummary {
  id: number;
  uuid: string;
  firstName: string;
  email: string;
}

export interface EventDefinition {
  id: string;
  teamId: number;
  name: string;
  /** When ingestion first saw the event. */
  createdAt: string | null;
  /** Server time of the latest sighting (hour precision). */
  lastSeenAt: string | null;
  updatedAt: string | null;
  description: string | null;
  tags: string[];
  verified: boolean;
  verifiedAt: string | null;
  verifiedBy: UserSummary | null;
  hidden: boolean;
  owner: UserSummary | null;
}

export type EventType = 'event' | 'event_custom' | 'event_posthog';

export type EventDefinitionOrderField = 'name' | 'last_seen_at' | 'created_at';

export interface EventDefinitionOrder {
  field: EventDefinitionOrderField;
  /** `last_seen_at::date` / `created_at::date`: compare the UTC day only. */
  byDay: boolean;
  descending: boolean;
}

export interface EventDefinitionFilter {
  searchTerms: string[];
  eventType: EventType;
  /** Empty: the default order. */
  ordering: EventDefinitionOrder[];
  excludedNames: string[];
  names: string[];
}
