import { ValidationError } from '../../errors.js';
import { textOf } from '../../util/text.js';
import { parseEntityParam, type RawInput, type SeriesEntity } from '../filter-model.js';
import { parseProperties } from '../../query/property-filter-model.js';
import { parseCorrelationType } from './correlation-filter.js';
import type { CorrelationActorsSelection } from './correlation-runner.js';

export { CORRELATION_TYPES } from './correlation-filter.js';

function parsePersonEntity(value: unknown): SeriesEntity {
  const attr = 'funnel_correlation_person_entity';
  if (value === undefined || value === null || value === '') throw new ValidationError(attr, 'No entity for persons specified', 'required');
  return parseEntityParam(value, attr, 'No entity for persons specified');
}

/** What a correlation row's persons are: an event (with properties) done inside the funnel, or person property values. */
export function parseCorrelationSelection(input: RawInput): CorrelationActorsSelection {
  const type = parseCorrelationType(input.funnel_correlation_type);
  if (type !== 'properties') return { kind: 'event', entity: parsePersonEntity(input.funnel_correlation_person_entity) };
  const properties = parseProperties(input.funnel_correlation_property_values ?? null, 'funnel_correlation_property_values');
  if (properties.values.length === 0) {
    throw new ValidationError('funnel_correlation_property_values', 'Property Correlation expects atleast one Property to get persons for', 'required');
  }
  return { kind: 'properties', properties };
}

/** `"true"` completed every step, `"false"` entered and did not; absent both. */
export function parseConverted(value: unknown): boolean | null {
  if (value === undefined || value === null || value === '') return null;
  const text = textOf(value).toLowerCase();
  if (text === 'true') return true;
  if (text === 'false') return false;
  throw new ValidationError('funnel_correlation_person_converted', 'funnel_correlation_person_converted must be true or false.');
}
