import { ValidationError } from '../../errors.js';
import { textOf } from '../../util/text.js';
import type { RawInput } from '../filter-model.js';
import { parseFunnelFilter, type FunnelFilter } from './funnel-filter.js';

export const CORRELATION_TYPES = ['events', 'event_with_properties', 'properties'] as const;
export type CorrelationType = (typeof CORRELATION_TYPES)[number];

/** A funnel correlation request: the funnel, what to correlate, and what to leave out. */
export interface CorrelationFilter {
  funnel: FunnelFilter;
  type: CorrelationType;
  /** Events mode: event names left out of the results. */
  excludeEventNames: string[];
  /** Properties mode: person (or group) property names, `$all` for every one. */
  propertyNames: string[];
  excludePropertyNames: string[];
  /** Event-with-properties mode: the events whose properties are correlated, and properties left out. */
  eventNames: string[];
  eventExcludePropertyNames: string[];
}

export function parseCorrelationType(value: unknown): CorrelationType {
  if (value === undefined || value === null || value === '') return 'events';
  if (!(CORRELATION_TYPES as readonly unknown[]).includes(value)) {
    throw new ValidationError('funnel_correlation_type', `funnel_correlation_type must be one of ${CORRELATION_TYPES.join(', ')}.`);
  }
  return value as CorrelationType;
}

/** A list of names: a JSON list in a query string or body, or one name. */
function names(value: unknown, attr: string): string[] {
  if (value === undefined || value === null || value === '') return [];
  let decoded: unknown = value;
  if (typeof value === 'string') {
    try {
      decoded = JSON.parse(value);
    } catch {
      decoded = value;
    }
  }
  const list = Array.isArray(decoded) ? decoded : [decoded];
  if (!list.every((item) => typeof item === 'string' || typeof item === 'number')) throw new ValidationError(attr, `${attr} must be a list of names.`);
  return list.map((item) => textOf(item));
}

export function parseCorrelationFilter(input: RawInput): CorrelationFilter {
  const filter: CorrelationFilter = {
    funnel: parseFunnelFilter(input),
    type: parseCorrelationType(input.funnel_correlation_type),
    excludeEventNames: names(input.funnel_correlation_exclude_event_names, 'funnel_correlation_exclude_event_names'),
    propertyNames: names(input.funnel_correlation_names, 'funnel_correlation_names'),
    excludePropertyNames: names(input.funnel_correlation_exclude_names, 'funnel_correlation_exclude_names'),
    eventNames: names(input.funnel_correlation_event_names, 'funnel_correlation_event_names'),
    eventExcludePropertyNames: names(input.funnel_correlation_event_exclude_property_names, 'funnel_correlation_event_exclude_property_names'),
  };
  if (filter.type === 'properties' && filter.propertyNames.length === 0) {
    throw new ValidationError('funnel_correlation_names', 'Property Correlation expects atleast one Property to run correlation on', 'required');
  }
  if (filter.type === 'event_with_properties' && filter.eventNames.length === 0) {
    throw new ValidationError('funnel_correlation_event_names', 'Event Property Correlation expects atleast one event name to run correlation on', 'required');
  }
  return filter;
}
