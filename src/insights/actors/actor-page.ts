import { ValidationError } from '../../errors.js';
import { textOf } from '../../util/text.js';
import type { RawInput } from '../filter-model.js';
import type { SqlParams } from '../../query/sql-params.js';
import { safeInteger } from '../../util/safe-integer.js';

/**
 * What an actors list can be ordered by: the actor id as text, the person's creation time or
 * integer id, a person property (read from its materialized column when `column` names one, else
 * from the properties JSON), or a per-actor value the source computes, by the source's name for it.
 */
export type ActorSortKey =
  | { kind: 'actor' }
  | { kind: 'created_at' }
  | { kind: 'person_number' }
  | { kind: 'property'; key: string; column: string | null }
  | { kind: 'value'; name: string };

export interface ActorSortItem {
  key: ActorSortKey;
  descending: boolean;
}

/** Which slice of an actor list a request asks for. */
export interface ActorPage {
  limit: number;
  offset: number;
  /** An order over the source's own (an ActorsQuery's `orderBy`): actors that tie keep the source's order. Absent: the source's order. */
  order?: readonly ActorSortItem[];
}

/** PostHog's actors default; larger pages are clamped to 1,000 so one request cannot hydrate the whole project. */
const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;

function count(value: unknown, attr: string): number | null {
  if (value === undefined || value === null || value === '') return null;
  const text = textOf(value).trim();
  if (!/^\d+$/.test(text)) throw new ValidationError(attr, 'A valid integer is required.', 'invalid');
  return safeInteger(text);
}

/** `limit`/`offset` (or the correlation endpoint's own names for them). */
export function readActorPage(input: RawInput, limitKey = 'limit', offsetKey = 'offset'): ActorPage {
  const limit = count(input[limitKey], limitKey);
  return {
    limit: limit === null || limit === 0 ? DEFAULT_LIMIT : Math.min(limit, MAX_LIMIT),
    offset: count(input[offsetKey], offsetKey) ?? 0,
  };
}

/** The page's rows and one more: whether that one comes back says whether another page follows. */
export function limitClause(page: ActorPage, params: SqlParams): string {
  return `LIMIT ${params.add(page.limit + 1, 'UInt64')} OFFSET ${params.add(page.offset, 'UInt64')}`;
}

/** The rows of the page out of what `limitClause` read, and whether more follow. */
export function pageRows<T>(rows: readonly T[], page: ActorPage): { rows: T[]; hasMore: boolean } {
  return { rows: rows.slice(0, page.limit), hasMore: rows.length > page.limit };
}
