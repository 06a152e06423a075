import type { DateTime } from 'luxon';
import { flagParam, stringParam, type RawQuery } from '../util/request-params.js';
import { ValidationError } from '../errors.js';
import { parseDate } from '../query/date-range.js';
import { EMPTY_PROPERTY_GROUP, parseProperties, type PropertyGroup } from '../query/property-filter-model.js';
import { isUuid, type PersonKey } from '../persons/person-id.js';
import { safeInteger } from '../util/safe-integer.js';
import { decodeEventCursor, type EventCursor } from './event-cursor.js';
import { EARLIEST_EVENT_TIME, clampEventTime } from './event-time.js';

export const DEFAULT_EVENTS_LIMIT = 100;
/** Airbyte's source asks for pages of 10,000 and stops at the first short one: no lower clamp. */
export const MAX_EVENTS_LIMIT = 10_000;
/** Deeper pages are read by following `next`, which costs the same at any depth. */
export const MAX_EVENTS_OFFSET = 50_000;
/** Without `before`, events up to this far ahead of now are listed (clocks are never quite in step). */
const DEFAULT_BEFORE_AHEAD_MS = 5_000;

/** What `GET /events/` asks for, every parameter checked. */
export interface EventListQuery {
  event: string | null;
  distinctId: string | null;
  /** Every distinct id of this person. */
  person: PersonKey | null;
  actionId: number | null;
  properties: PropertyGroup;
  /** Exclusive lower bound (epoch ms); null lists all history. */
  after: number | null;
  /** Exclusive upper bound (epoch ms). */
  before: number;
  newestFirst: boolean;
  limit: number;
  offset: number;
  /** Continue after this event (from a `next` link). */
  cursor: EventCursor | null;
  includePerson: boolean;
}

function nonEmpty(query: RawQuery, name: string): string | null {
  const value = stringParam(query, name);
  return value === undefined || value === '' ? null : value;
}

function count(query: RawQuery, name: string): number | null {
  const text = nonEmpty(query, name);
  if (text === null) return null;
  if (!/^\d+$/.test(text)) throw new ValidationError(name, 'A valid integer is required.', 'invalid');
  return safeInteger(text);
}

function readLimit(query: RawQuery): number {
  const limit = count(query, 'limit');
  return limit === null || limit === 0 ? DEFAULT_EVENTS_LIMIT : Math.min(limit, MAX_EVENTS_LIMIT);
}

function readOffset(query: RawQuery): number {
  const offset = count(query, 'offset') ?? 0;
  if (offset > MAX_EVENTS_OFFSET) {
    throw new ValidationError('offset', `offset can be at most ${MAX_EVENTS_OFFSET}; follow next to read further.`);
  }
  return offset;
}

function readPerson(query: RawQuery): PersonKey | null {
  const text = nonEmpty(query, 'person_id');
  if (text === null) return null;
  if (isUuid(text)) return { kind: 'uuid', uuid: text.toLowerCase() };
  if (/^\d+$/.test(text)) return { kind: 'id', id: safeInteger(text) };
  throw new ValidationError('person_id', 'person_id must be the integer id or the UUID of a person.');
}

function readActionId(query: RawQuery): number | null {
  const text = nonEmpty(query, 'action_id');
  if (text === null) return null;
  if (!/^\d+$/.test(text)) throw new ValidationError('action_id', 'A valid integer is required.', 'invalid');
  return safeInteger(text);
}

function readProperties(query: RawQuery): PropertyGroup {
  const text = nonEmpty(query, 'properties');
  return text === null ? EMPTY_PROPERTY_GROUP : parseProperties(text);
}

function readTime(query: RawQuery, name: 'after' | 'before', timezone: string, now: DateTime): number | null {
  const text = nonEmpty(query, name);
  if (text === null) return null;
  const parsed = parseDate(text, timezone, now);
  if (!parsed) throw new ValidationError(name, `Unable to parse ${name} "${text}": use an ISO date-time or a relative date such as -7d.`);
  return parsed.at.toMillis();
}

const ORDERS = new Map<string, boolean>([
  ['-timestamp', true],
  ['timestamp', false],
]);

function readNewestFirst(query: RawQuery): boolean {
  const text = nonEmpty(query, 'orderBy');
  if (text === null) return true;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const newestFirst = Array.isArray(parsed) && parsed.length === 1 ? ORDERS.get(String(parsed[0])) : undefined;
  if (newestFirst === undefined) throw new ValidationError('orderBy', 'orderBy must be ["-timestamp"] or ["timestamp"].');
  return newestFirst;
}

/**
 * Reads the parameters of the events list. Dates without an offset are in the project's
 * timezone; relative dates (`-7d`, `-24h`, `mStart`) are taken from now, as insights take them.
 */
export function readEventListQuery(query: RawQuery, timezone: string, now: DateTime): EventListQuery {
  const after = readTime(query, 'after', timezone, now);
  const before = readTime(query, 'before', timezone, now) ?? now.toMillis() + DEFAULT_BEFORE_AHEAD_MS;
  const cursorText = nonEmpty(query, 'cursor');
  return {
    event: nonEmpty(query, 'event'),
    distinctId: nonEmpty(query, 'distinct_id'),
    person: readPerson(query),
    actionId: readActionId(query),
    properties: readProperties(query),
    // Nothing is stored before the earliest time, so a bound below it bounds nothing.
    after: after === null || after < EARLIEST_EVENT_TIME ? null : clampEventTime(after),
    before: clampEventTime(before),
    newestFirst: readNewestFirst(query),
    limit: readLimit(query),
    offset: readOffset(query),
    cursor: cursorText === null ? null : decodeEventCursor(cursorText),
    includePerson: flagParam(query, 'include_person') === true,
  };
}
