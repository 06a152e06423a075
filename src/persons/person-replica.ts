import type { OutboxEntry } from '../storage/warehouse/outbox.js';
import { isoToMicros } from '../util/iso-time.js';
import type { SerialisedProperties } from './person-repository.js';
import type { PersonRecord } from './person.js';

/** The warehouse copy of a person (or its tombstone). */
export function personReplicaEntry(person: PersonRecord & SerialisedProperties, deleted = false): OutboxEntry {
  return {
    target: 'persons',
    row: {
      id: person.uuid,
      team_id: person.teamId,
      person_id: person.id,
      properties: person.propertiesJson ?? JSON.stringify(person.properties),
      is_identified: person.isIdentified ? 1 : 0,
      created_at: isoToMicros(person.createdAt),
      is_deleted: deleted ? 1 : 0,
    },
  };
}

/** The warehouse copy of a distinct-id link (or its tombstone). */
export function distinctIdReplicaEntry(teamId: number, distinctId: string, personUuid: string, deleted = false): OutboxEntry {
  return {
    target: 'person_distinct_ids',
    row: { team_id: teamId, distinct_id: distinctId, person_id: personUuid, is_deleted: deleted ? 1 : 0 },
  };
}
