import { ValidationError } from '../errors.js';
import { isUuid } from '../persons/person-id.js';
import { EARLIEST_EVENT_TIME, LATEST_EVENT_TIME, msFromWarehouseTime } from './event-time.js';

/**
 * Where a page of the events list ended: the last event's time (DateTime64(6) text) and UUID.
 * The next page holds the events strictly after it in list order, so events sharing a timestamp
 * are neither repeated nor skipped, however many there are.
 */
export interface EventCursor {
  time: string;
  uuid: string;
}

export function encodeEventCursor(cursor: EventCursor): string {
  return Buffer.from(JSON.stringify([cursor.time, cursor.uuid]), 'utf8').toString('base64url');
}

function invalidCursor(): ValidationError {
  return new ValidationError('cursor', 'Invalid cursor: use the next link of a previous page.', 'invalid');
}

export function decodeEventCursor(text: string): EventCursor {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor();
  }
  if (!Array.isArray(decoded) || decoded.length !== 2) throw invalidCursor();
  const [time, uuid] = decoded as unknown[];
  if (typeof time !== 'string' || typeof uuid !== 'string' || !isUuid(uuid)) throw invalidCursor();
  const ms = msFromWarehouseTime(time);
  if (ms === null || ms < EARLIEST_EVENT_TIME || ms > LATEST_EVENT_TIME) throw invalidCursor();
  return { time, uuid: uuid.toLowerCase() };
}
