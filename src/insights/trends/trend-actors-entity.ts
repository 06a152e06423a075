import { ValidationError } from '../../errors.js';
import { textOf } from '../../util/text.js';
import { targetEntity } from '../actors/analysis-filter.js';
import type { InsightFilter, RawInput, SeriesEntity } from '../filter-model.js';

function present(input: RawInput, keys: string[]): unknown {
  for (const key of keys) if (input[key] !== undefined && input[key] !== null && textOf(input[key]).trim() !== '') return input[key];
  return undefined;
}

/**
 * The series a trend or stickiness data point belongs to, which the request must name: by
 * `entity_order` (the series' order, else its position), or by `entity_id` and `entity_type`
 * (older clients: `entityId`, `type`). An id alone names one of the request's event series, and
 * `entity_type=events` alone the all-events series. PostHog answers a server error when it
 * cannot tell; here it is a 400 naming the parameter.
 */
export function requireTargetEntity(filter: InsightFilter, input: RawInput): SeriesEntity {
  const id = present(input, ['entity_id', 'entityId']);
  const type = present(input, ['entity_type', 'type']);
  const order = present(input, ['entity_order']);
  if (order !== undefined && !/^\d+$/.test(textOf(order).trim())) {
    throw new ValidationError('entity_order', 'entity_order must be the order of one of the series.');
  }
  if (id === undefined && type === undefined) {
    if (order === undefined) {
      throw new ValidationError('entity_id', 'An entity id and the entity type must be provided to determine an entity', 'required');
    }
    const index = Number(textOf(order).trim());
    const byOrder = filter.entities.find((entity) => entity.order === index) ?? filter.entities[index];
    if (!byOrder) throw new ValidationError('entity_order', `No series has order ${index}.`);
    return byOrder;
  }
  if (type === undefined && !filter.entities.some((entity) => entity.type === 'events' && textOf(entity.id) === textOf(id))) {
    throw new ValidationError('entity_type', 'The entity type must be provided for an entity that is not one of the events series.', 'required');
  }
  return targetEntity(filter, input);
}
