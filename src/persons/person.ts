import { hash } from 'node:crypto';
import { parse as parseUuid } from 'uuid';

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

/** The namespace as bytes, which start what the name-based UUID hashes. */
const PERSON_UUID_NAMESPACE_BYTES = Buffer.from(parseUuid(PERSON_UUID_NAMESPACE));

/**
 * The UUIDv5 of `name` in the persons' namespace (RFC 9562: SHA-1 of the namespace's bytes and
 * the name's UTF-8, with the version and variant bits set). Capture derives one for every
 * distinct id it has not seen: the one-shot hash costs a third of the uuid package's `v5`, which
 * makes a hash object per call.
 */
export function personUuidFromName(name: string): string {
  const hex = hash('sha1', Buffer.concat([PERSON_UUID_NAMESPACE_BYTES, Buffer.from(name, 'utf8')]), 'hex');
  const variant = ((Number.parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
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
