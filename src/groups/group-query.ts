import { stringParam, type RawQuery } from '../util/request-params.js';
import { RequiredFieldError, ValidationError } from '../errors.js';
import { decodeGroupCursor } from './group-cursor.js';
import type { GroupListFilter } from './group.js';

/** Groups per page of the list, as PostHog pages them. */
export const GROUPS_PAGE_SIZE = 100;

const MAX_GROUP_TYPE_INDEX = 4;

function nonEmpty(query: RawQuery, name: string): string | null {
  const value = stringParam(query, name);
  return value === undefined || value === '' ? null : value;
}

/** `group_type_index`, which every group endpoint needs: an integer 0–4. */
export function readGroupTypeIndex(query: RawQuery): number {
  const text = nonEmpty(query, 'group_type_index');
  if (text === null) {
    throw new ValidationError(
      'group_type_index',
      'You must pass ?group_type_index= in this URL. To get a list of valid group types, call /api/:project_id/groups_types/.',
      'required',
    );
  }
  if (!/^\d+$/.test(text) || Number(text) > MAX_GROUP_TYPE_INDEX) {
    throw new ValidationError('group_type_index', `group_type_index must be an integer from 0 to ${MAX_GROUP_TYPE_INDEX}.`);
  }
  return Number(text);
}

export function readGroupListFilter(query: RawQuery): GroupListFilter {
  const cursor = nonEmpty(query, 'cursor');
  return {
    groupTypeIndex: readGroupTypeIndex(query),
    search: nonEmpty(query, 'search'),
    groupKey: nonEmpty(query, 'group_key'),
    after: cursor === null ? null : decodeGroupCursor(cursor),
    limit: GROUPS_PAGE_SIZE,
  };
}

/** The exact key `groups/find` looks up. */
export function readGroupKey(query: RawQuery): string {
  const key = stringParam(query, 'group_key');
  if (key === undefined) throw new RequiredFieldError('group_key');
  return key;
}
