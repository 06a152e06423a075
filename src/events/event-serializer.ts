import { parseJsonColumn } from '../util/json.js';
import type { EventPerson } from './event-persons.js';
import type { EventView } from './event-list-service.js';
import { isoFromWarehouseTime } from './event-time.js';

function serializePerson(person: EventPerson) {
  return { is_identified: person.isIdentified, distinct_ids: [person.firstDistinctId], properties: person.properties };
}

/**
 * PostHog's event record. `elements` is always empty: the elements are in `elements_chain`, as
 * PostHog's current clients read them.
 */
export function serializeEvent({ event, person }: EventView) {
  return {
    id: event.uuid,
    distinct_id: event.distinctId,
    properties: parseJsonColumn<Record<string, unknown>>(event.properties, {}),
    event: event.event,
    timestamp: isoFromWarehouseTime(event.time),
    person: person && serializePerson(person),
    elements: [],
    elements_chain: event.elementsChain,
  };
}
