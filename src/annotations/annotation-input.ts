import { DateTime } from 'luxon';
import { ValidationError } from '../errors.js';
import { parseDate } from '../query/date-range.js';
import { textOf } from '../util/text.js';
import { ANNOTATION_SCOPES, CREATION_TYPES, type AnnotationScope, type CreationType } from './annotation.js';
import { isJsonObject as isObject } from '../util/json.js';

/** The writable fields of a create or PATCH body, validated; absent fields stay undefined. */
export interface AnnotationInput {
  content?: string | null;
  dateMarker?: string | null;
  creationType?: CreationType;
  insightId?: number | null;
  dashboardId?: number | null;
  scope?: AnnotationScope;
  deleted?: boolean;
}

const MAX_CONTENT = 400;

/** An ISO 8601 date or date-time (no offset means UTC), as ISO UTC text with milliseconds. */
export function parseInstant(value: unknown, attr: string): string {
  const text = textOf(value);
  const parsed = typeof value === 'string' ? parseDate(text, 'UTC', DateTime.now()) : null;
  if (!parsed || parsed.relative) {
    throw new ValidationError(attr, `"${text}" is not an ISO 8601 date or date-time, such as 2024-01-31T12:00:00Z.`, 'invalid');
  }
  return parsed.at.toUTC().toISO()!;
}

/** A scope as sent; `insight` is PostHog's newer name of `dashboard_item`. */
export function parseScope(value: unknown, attr: string): AnnotationScope {
  const scope = value === 'insight' ? 'dashboard_item' : value;
  if (scope === 'recording') throw new ValidationError(attr, 'Recording scope is deprecated', 'invalid_choice');
  if (!(ANNOTATION_SCOPES as readonly unknown[]).includes(scope)) {
    throw new ValidationError(attr, `"${textOf(value)}" is not a valid choice.`, 'invalid_choice');
  }
  return scope as AnnotationScope;
}

function optionalId(value: unknown, attr: string): number | null {
  if (value === null) return null;
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
    throw new ValidationError(attr, `Incorrect type. Expected pk value, received ${typeof value}.`, 'incorrect_type');
  }
  return value;
}

export function parseAnnotationInput(body: unknown): AnnotationInput {
  if (!isObject(body)) throw new ValidationError(null, 'Invalid data. Expected a dictionary.', 'invalid');
  const input: AnnotationInput = {};
  if (body.content !== undefined) {
    if (body.content !== null && typeof body.content !== 'string') throw new ValidationError('content', 'Not a valid string.', 'invalid');
    if (typeof body.content === 'string' && body.content.length > MAX_CONTENT) {
      throw new ValidationError('content', `Ensure this field has no more than ${MAX_CONTENT} characters.`, 'max_length');
    }
    input.content = body.content;
  }
  if (body.date_marker !== undefined) input.dateMarker = body.date_marker === null ? null : parseInstant(body.date_marker, 'date_marker');
  if (body.creation_type !== undefined) {
    if (!(CREATION_TYPES as readonly unknown[]).includes(body.creation_type)) {
      throw new ValidationError('creation_type', `"${textOf(body.creation_type)}" is not a valid choice.`, 'invalid_choice');
    }
    input.creationType = body.creation_type as CreationType;
  }
  if (body.dashboard_item !== undefined) input.insightId = optionalId(body.dashboard_item, 'dashboard_item');
  if (body.dashboard_id !== undefined) input.dashboardId = optionalId(body.dashboard_id, 'dashboard_id');
  if (body.scope !== undefined) input.scope = parseScope(body.scope, 'scope');
  if (body.deleted !== undefined) {
    if (typeof body.deleted !== 'boolean') throw new ValidationError('deleted', 'Must be a valid boolean.', 'invalid');
    input.deleted = body.deleted;
  }
  return input;
}
