import { ValidationError } from '../../errors.js';
import { textOf } from '../../util/text.js';
import { parseEntities, parseInsightFilter, type InsightFilter, type RawInput, type SeriesEntity } from '../filter-model.js';

/**
 * The shared filter model read for an analysis endpoint. `insight` and `shown_as` name the
 * insight a persons URL came from; the endpoint already says which one it is, so they are
 * dropped before the trend-style parse.
 */
export function parseAnalysisFilter(input: RawInput): InsightFilter {
  const { insight: _insight, shown_as: _shownAs, ...rest } = input;
  return parseInsightFilter(rest);
}

function firstPresent(input: RawInput, keys: string[]): unknown {
  for (const key of keys) if (input[key] !== undefined && input[key] !== null && input[key] !== '') return input[key];
  return undefined;
}

/**
 * The series a data point belongs to (PostHog's `get_target_entity`): by `entity_order` when it
 * is given, else the filter's entity with that id, type and math, else one built from the params.
 */
export function targetEntity(filter: InsightFilter, input: RawInput): SeriesEntity {
  const id = firstPresent(input, ['entity_id', 'entityId']);
  const type = textOf(firstPresent(input, ['entity_type', 'type']) ?? 'events');
  const math = firstPresent(input, ['entity_math']);
  const order = firstPresent(input, ['entity_order']);
  if (type !== 'events' && type !== 'actions') {
    throw new ValidationError('entity_type', `Entity type "${type}" is not one of events, actions.`);
  }
  if (id === undefined && type !== 'events') {
    throw new ValidationError('entity_id', 'An entity id and the entity type must be provided to determine an entity');
  }
  if (order !== undefined && /^\d+$/.test(textOf(order))) {
    const index = Number(order);
    const byOrder = filter.entities.find((entity) => entity.order === index) ?? filter.entities[index];
    if (byOrder && (id === undefined || textOf(byOrder.id) === textOf(id))) return byOrder;
  }
  const matching = filter.entities.filter(
    (entity) => entity.type === type && textOf(entity.id) === textOf(id ?? null) && (math === undefined || (entity.mathName ?? 'total') === math),
  );
  if (matching[0]) return matching[0];
  const raw: Record<string, unknown> = { id: id ?? null };
  if (math !== undefined) raw.math = math;
  for (const key of ['entity_math_property', 'math_property']) if (input[key] !== undefined) raw.math_property = input[key];
  const [built] = parseEntities({ [type]: [raw] });
  return built!;
}
