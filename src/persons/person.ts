/** A person as the catalog holds it. */
export interface PersonRecord {
  id: number;
  uuid: string;
  teamId: number;
  properties: Record<string, unknown>;
  isIdentified: boolean;
  /** ISO-8601 UTC with microseconds, e.g. `2024-01-02T03:04:05.123456Z`. */
  createdAt: string;
  lastSeenAt: string | null;
  version: number;
}

/** PostHog's namespace for person UUIDs: uuidv5(namespace, "<team_id>:<distinct_id>"). */
export const PERSON_UUID_NAMESPACE = '932979b4-65c3-4424-8467-0b66ec27bc22';
