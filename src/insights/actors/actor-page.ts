import { ValidationError } from '../../errors.js';
import { textOf } from '../../util/text.js';
import type { RawInput } from '../filter-model.js';
import type { SqlParams } from '../../query/sql-params.js';
import { safeInteger } from '../../util/safe-integer.js';

/** Which slice of an actor list a request asks for. */
export interface ActorPage {
  limit: number;
  offset: number;
}

/** PostHog's actors default; larger pages are clamped so one request cannot hydrate the whole project. */
const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 10_000;

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

export function limitClause(page: ActorPage, params: SqlParams): string {
  return `LIMIT ${params.add(page.limit, 'UInt64')} OFFSET ${params.add(page.offset, 'UInt64')}`;
}
