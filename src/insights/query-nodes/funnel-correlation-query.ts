import { ValidationError } from '../../errors.js';
import { CORRELATION_TYPES, type CorrelationFilter } from '../funnels/correlation-filter.js';
import type { FunnelFilter } from '../funnels/funnel-filter.js';
import { invalid, isAbsent, isObject, optionalStringList, refuseUnless, type JsonObject } from './insight-node-fields.js';
import { funnelsQueryToFilter } from './funnels-query.js';

/**
 * A FunnelCorrelationQuery node as the legacy correlation filter, so the correlation runner
 * behind `/insights/funnel/correlation/` computes it. The funnel is the FunnelsQuery inside its
 * FunnelsActorsQuery source; the population is everyone who entered it (PostHog forces
 * `funnelStep` to 1, so it is ignored).
 */

/** FunnelsActorsQuery fields that would narrow the correlated population to part of the funnel. */
const NARROWING_ACTOR_FIELDS = ['funnelStepBreakdown', 'funnelTrendsDropOff', 'funnelTrendsEntrancePeriodStart', 'funnelCustomSteps'];

/** The FunnelsQuery of the FunnelsActorsQuery at `path`, as the funnel filter. */
function sourceFunnel(source: unknown, path: string): FunnelFilter {
  if (isAbsent(source)) throw new ValidationError(path, 'This field is required.', 'required');
  if (!isObject(source)) invalid(path, 'Must be a FunnelsActorsQuery.');
  if (source.kind !== 'FunnelsActorsQuery') invalid(`${path}.kind`, 'The source of a FunnelCorrelationQuery is a FunnelsActorsQuery.');
  for (const field of NARROWING_ACTOR_FIELDS) {
    refuseUnless(isAbsent(source[field]), `${path}.${field}`, 'Tally correlates everyone who entered the funnel: this selection is not supported yet.');
  }
  if (isAbsent(source.source)) throw new ValidationError(`${path}.source`, 'This field is required.', 'required');
  return funnelsQueryToFilter(source.source, `${path}.source`);
}

function correlationType(node: JsonObject, path: string): CorrelationFilter['type'] {
  const value = node.funnelCorrelationType;
  if (isAbsent(value)) throw new ValidationError(`${path}.funnelCorrelationType`, 'This field is required.', 'required');
  if (typeof value !== 'string' || !(CORRELATION_TYPES as readonly string[]).includes(value)) {
    invalid(`${path}.funnelCorrelationType`, `"${String(value)}" is not one of ${CORRELATION_TYPES.join(', ')}.`);
  }
  return value as CorrelationFilter['type'];
}

/**
 * Translates the FunnelCorrelationQuery found at `path` to the typed filter the correlation
 * runner computes; errors name the node's fields (the funnel's at `<path>.source.source`).
 */
export function funnelCorrelationQueryToFilter(node: unknown, path: string): CorrelationFilter {
  if (!isObject(node)) invalid(path, 'A query must be an object.');
  if (node.kind !== 'FunnelCorrelationQuery') invalid(`${path}.kind`, 'Expected a FunnelCorrelationQuery.');
  const funnel = sourceFunnel(node.source, `${path}.source`);
  const type = correlationType(node, path);
  const filter: CorrelationFilter = {
    funnel,
    type,
    excludeEventNames: optionalStringList(node.funnelCorrelationExcludeEventNames, `${path}.funnelCorrelationExcludeEventNames`),
    propertyNames: optionalStringList(node.funnelCorrelationNames, `${path}.funnelCorrelationNames`),
    excludePropertyNames: optionalStringList(node.funnelCorrelationExcludeNames, `${path}.funnelCorrelationExcludeNames`),
    eventNames: optionalStringList(node.funnelCorrelationEventNames, `${path}.funnelCorrelationEventNames`),
    eventExcludePropertyNames: optionalStringList(node.funnelCorrelationEventExcludePropertyNames, `${path}.funnelCorrelationEventExcludePropertyNames`),
  };
  if (type === 'properties' && filter.propertyNames.length === 0) {
    throw new ValidationError(`${path}.funnelCorrelationNames`, 'Property Correlation expects atleast one Property to run correlation on', 'required');
  }
  if (type === 'event_with_properties' && filter.eventNames.length === 0) {
    throw new ValidationError(
      `${path}.funnelCorrelationEventNames`,
      'Event Property Correlation expects atleast one event name to run correlation on',
      'required',
    );
  }
  return filter;
}
