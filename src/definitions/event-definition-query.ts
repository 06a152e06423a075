import type { EventDefinitionFilter, EventDefinitionOrder, EventDefinitionOrderField, EventType } from './event-definition.js';
import { commaListParam, stringParam } from '../util/request-params.js';
import { invalidChoice, jsonNameListParam, searchTerms } from './definition-query-params.js';

/** The list parameters as the query string carries them: a repeated parameter arrives as a list. */
export type EventDefinitionListQuery = {
  search?: string | string[];
  event_type?: string | string[];
  ordering?: string | string[];
  excluded_properties?: string | string[];
  names?: string | string[];
};

/** `all` and `action_event` are older spellings of `event` that PostHog still accepts. */
const EVENT_TYPES = new Map<string, EventType>([
  ['event', 'event'],
  ['all', 'event'],
  ['action_event', 'event'],
  ['event_custom', 'event_custom'],
  ['event_posthog', 'event_posthog'],
]);

const ORDER_FIELDS = new Map<string, { field: EventDefinitionOrderField; byDay: boolean }>([
  ['name', { field: 'name', byDay: false }],
  ['last_seen_at', { field: 'last_seen_at', byDay: false }],
  ['last_seen_at::date', { field: 'last_seen_at', byDay: true }],
  ['created_at', { field: 'created_at', byDay: false }],
  ['created_at::date', { field: 'created_at', byDay: true }],
]);

/** `ordering` keys, repeated or comma-separated, `-` for descending; unknown keys are ignored. */
function readOrdering(query: EventDefinitionListQuery): EventDefinitionOrder[] {
  return commaListParam(query, 'ordering').flatMap((key) => {
    const descending = key.startsWith('-');
    const known = ORDER_FIELDS.get(descending ? key.slice(1) : key);
    return known ? [{ ...known, descending }] : [];
  });
}

/** Reads the list filters of `GET event_definitions`; bad values are 400s naming the parameter. */
export function readEventDefinitionFilter(query: EventDefinitionListQuery): EventDefinitionFilter {
  const eventTypeParam = stringParam(query, 'event_type') ?? 'event';
  const eventType = EVENT_TYPES.get(eventTypeParam);
  if (!eventType) throw invalidChoice('event_type', eventTypeParam);
  return {
    searchTerms: searchTerms(query),
    eventType,
    ordering: readOrdering(query),
    excludedNames: jsonNameListParam(query, 'excluded_properties'),
    names: commaListParam(query, 'names'),
  };
}
