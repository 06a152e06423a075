import type { RawInput } from '../filter-model.js';
import { combineAnd, type PropertyFilter, type PropertyGroup } from '../../query/property-filter-model.js';

function personContains(key: string, search: string): PropertyFilter {
  return { kind: 'filter', type: 'person', key, value: search, operator: 'icontains', groupTypeIndex: null, negation: false };
}

/**
 * PostHog's `search` on actor lists (`prepare_actor_query_filter`): an OR of person `email` and
 * `name` containing the text, ANDed with the request's properties.
 */
export function withSearch(properties: PropertyGroup, input: RawInput): PropertyGroup {
  const search = typeof input.search === 'string' ? input.search.trim() : '';
  if (search === '') return properties;
  return combineAnd(properties, { kind: 'group', type: 'OR', values: [personContains('email', search), personContains('name', search)] });
}
