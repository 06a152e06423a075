import { parse as parseUuid, v5 as uuidv5 } from 'uuid';

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

/** The namespace as bytes: given as text, the uuid package parses it again on every call. */
const PERSON_UUID_NAMESPACE_BYTES = parseUuid(PERSON_UUID_NAMESPACE);

/**
 * The UUIDv5 of `name` in the persons' namespace. The name goes in as its UTF-8 bytes: from a
 * string, the uuid package encodes it through `encodeURIComponent`, a third of the cost of a
 * person UUID, which capture derives for every distinct id it has not seen.
 */
export function personUuidFromName(name: string): string {
  return uuidv5(Buffer.from(name, 'utf8'), PERSON_UUID_NAMESPACE_BYTES);
}

/** The UUID PostHog gives the person of a project's distinct id. */
export function personUuidFor(teamId: number, distinctId: string): string {
  return personUuidFromName(`${teamId}:${distinctId}`);
}

/**
 * Longest properties text a person may have, in UTF-16 units. PostHog refuses person updates
 * past 512 KB; here every event row carries its person's properties too, so a person without
 * a bound would make each of its events that large.
 */
export const MAX_PERSON_PROPERTIES_LENGTH = 512 * 1024;
