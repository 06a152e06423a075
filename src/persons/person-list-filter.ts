import { ValidationError } from '../errors.js';
import { stringParam, type RawQuery } from '../util/request-params.js';
import { parseProperties, type PropertyFilter, type PropertyGroup, type PropertyNode } from '../query/property-filter-model.js';

/** The filter parameters of `GET /persons` as the query string carries them: a repeated one arrives as a list. */
export type PersonListParams = {
  distinct_id?: string | string[];
  email?: string | string[];
  search?: string | string[];
  properties?: string | string[];
};

/** The filters of `GET /persons`. */
export interface PersonListFilter {
  /** Exact match on any of the person's distinct ids. */
  distinctId: string | null;
  /** Exact match on the `email` property. */
  email: string | null;
  /** Email substring (case-insensitive), exact distinct id, or the person UUID. */
  search: string | null;
  /** Person and cohort filters; other filter types do not apply to persons and are dropped. */
  properties: PropertyGroup;
}

function nonEmpty(query: RawQuery, name: string): string | null {
  const value = stringParam(query, name);
  return value === undefined || value === '' ? null : value;
}

function personFiltersOnly(group: PropertyGroup): PropertyGroup {
  const values: PropertyNode[] = [];
  for (const node of group.values) {
    if (node.kind === 'group') {
      const kept = personFiltersOnly(node);
      if (kept.values.length > 0) values.push(kept);
    } else if (node.type === 'person' || node.type === 'cohort') {
      values.push(node);
    }
  }
  return { ...group, values };
}

/** `properties`: JSON (a list or an AND/OR group); text that is not JSON is PostHog's "unparsable". */
function readProperties(query: RawQuery): PropertyGroup {
  const text = nonEmpty(query, 'properties');
  if (text === null) return { kind: 'group', type: 'AND', values: [] };
  let decoded: unknown;
  try {
    decoded = JSON.parse(text);
  } catch {
    throw new ValidationError(null, 'Properties are unparsable!');
  }
  return personFiltersOnly(parseProperties(decoded));
}

export function readPersonListFilter(query: PersonListParams): PersonListFilter {
  return {
    distinctId: nonEmpty(query, 'distinct_id'),
    email: nonEmpty(query, 'email'),
    search: nonEmpty(query, 'search')?.trim() || null,
    properties: readProperties(query),
  };
}

/** The person property that `email` and `search` look in. */
const EMAIL_PROPERTY = 'email';

/** A person-property filter, for the list's own email conditions (compiled like any other). */
export function emailFilter(operator: 'exact' | 'icontains', value: string): PropertyFilter {
  return { kind: 'filter', type: 'person', key: EMAIL_PROPERTY, value, operator, groupTypeIndex: null, negation: false };
}

/** Whether the list asks for every person of the project. */
export function listsEveryone(filter: PersonListFilter): boolean {
  return filter.distinctId === null && filter.email === null && filter.search === null && filter.properties.values.length === 0;
}

/** The person properties whose values the list's conditions compare (not just test for presence). */
export function comparedPersonProperties(filter: PersonListFilter): string[] {
  const keys: string[] = [];
  const visit = (node: PropertyNode): void => {
    if (node.kind === 'group') node.values.forEach(visit);
    else if (node.type === 'person' && node.operator !== 'is_set' && node.operator !== 'is_not_set') keys.push(node.key);
  };
  visit(filter.properties);
  if (filter.email !== null || filter.search !== null) keys.push(EMAIL_PROPERTY);
  return keys;
}
