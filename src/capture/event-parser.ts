import { validate as isUuid } from 'uuid';
import { InvalidApiKey, InvalidPayload, MissingApiKey } from './capture-errors.js';
import { replaceNul } from '../util/nul.js';
import { MAX_DISTINCT_ID_LENGTH, truncateCodePoints } from './distinct-id-rules.js';
import { isJsonObject as isObject } from '../util/json.js';

/** One event as the SDK sent it, after PostHog capture's field rules. */
export interface IncomingEvent {
  event: string;
  distinctId: string;
  uuid: string | null;
  timestamp: unknown;
  offset: unknown;
  properties: Record<string, unknown>;
  set: Record<string, unknown> | null;
  setOnce: Record<string, unknown> | null;
}

export interface ParsedCapture {
  token: string;
  bodySentAt: unknown;
  events: IncomingEvent[];
}

const MAX_NAME_LENGTH = 200;
const MAX_TOKEN_LENGTH = 64;

function nonEmptyString(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value : null;
}

/** The token of one event: top-level `token`, `$token`, `api_key`, else `properties.token`. */
function eventToken(raw: Record<string, unknown>): string | null {
  const properties = isObject(raw.properties) ? raw.properties : {};
  return nonEmptyString(raw.token) ?? nonEmptyString(raw.$token) ?? nonEmptyString(raw.api_key) ?? nonEmptyString(properties.token);
}

function validateToken(token: string): string {
  const trimmed = token.trim();
  // Control characters, non-ASCII and personal keys can never be project tokens.
  if (trimmed.length > MAX_TOKEN_LENGTH || !/^[\x21-\x7e]+$/.test(trimmed) || trimmed.startsWith('phx_')) {
    throw new InvalidApiKey();
  }
  return trimmed;
}

function distinctIdOf(raw: Record<string, unknown>): string {
  const properties = isObject(raw.properties) ? raw.properties : {};
  let value = raw.distinct_id ?? raw.$distinct_id;
  if (value === undefined || value === null) value = properties.distinct_id;
  if (value === undefined || value === null) throw new InvalidPayload("All events must have the event field 'distinct_id'!");
  const text = replaceNul(typeof value === 'string' ? value : JSON.stringify(value));
  if (text.trim() === '') throw new InvalidPayload("All events must have the event field 'distinct_id'!");
  return truncateCodePoints(text, MAX_DISTINCT_ID_LENGTH);
}

function parseEvent(raw: unknown): IncomingEvent {
  if (!isObject(raw)) throw new InvalidPayload('every event must be a JSON object');
  if (typeof raw.event !== 'string' || raw.event === '') {
    throw new InvalidPayload("All events must have the event name field 'event'!");
  }
  if (raw.properties !== undefined && raw.properties !== null && !isObject(raw.properties)) {
    throw new InvalidPayload("the event field 'properties' must be an object");
  }
  let uuid: string | null = null;
  if (raw.uuid !== undefined && raw.uuid !== null && raw.uuid !== '') {
    if (typeof raw.uuid !== 'string' || !isUuid(raw.uuid)) throw new InvalidPayload("Event field 'uuid' is not a valid UUID");
    uuid = raw.uuid.toLowerCase();
  }
  for (const field of ['$set', '$set_once'] as const) {
    if (raw[field] !== undefined && raw[field] !== null && !isObject(raw[field])) {
      throw new InvalidPayload(`the event field '${field}' must be an object`);
    }
  }
  return {
    event: truncateCodePoints(raw.event, MAX_NAME_LENGTH),
    distinctId: distinctIdOf(raw),
    uuid,
    timestamp: raw.timestamp,
    offset: raw.offset,
    // The parsed request's own object, normalised in place: nothing else holds it. A spread copy
    // would cost far more than its bytes, since V8 rebuilds the clone's map for every added key.
    properties: isObject(raw.properties) ? raw.properties : {},
    set: isObject(raw.$set) ? raw.$set : null,
    setOnce: isObject(raw.$set_once) ? raw.$set_once : null,
  };
}

/**
 * Reads the decoded JSON as PostHog does — an array of events, a batch object, or one event —
 * and resolves its single token. Any bad event rejects the whole request.
 */
export function parseCapture(decoded: unknown, fallbackToken: string | null): ParsedCapture {
  let rawEvents: unknown[];
  let batchToken: string | null = null;
  let bodySentAt: unknown;
  if (Array.isArray(decoded)) {
    rawEvents = decoded;
  } else if (isObject(decoded) && Array.isArray(decoded.batch)) {
    rawEvents = decoded.batch;
    batchToken = nonEmptyString(decoded.api_key) ?? nonEmptyString(decoded.token);
    bodySentAt = decoded.sent_at;
  } else if (isObject(decoded)) {
    rawEvents = [decoded];
    bodySentAt = decoded.sent_at;
  } else {
    throw new InvalidPayload('expected an event, a list of events or a batch object');
  }
  if (rawEvents.length === 0) throw new InvalidPayload('request holds no event');

  let token = batchToken;
  if (token === null) {
    const tokens = new Set(rawEvents.map((raw) => (isObject(raw) ? eventToken(raw) : null)).filter((t) => t !== null));
    if (tokens.size > 1) throw new InvalidPayload('the events of one request carry different tokens');
    token = [...tokens][0] ?? fallbackToken;
  }
  if (token === null) throw new MissingApiKey();
  const validToken = validateToken(token);

  return { token: validToken, bodySentAt, events: rawEvents.map(parseEvent) };
}
