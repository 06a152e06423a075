import { ValidationError } from '../../errors.js';
import { textOf } from '../../util/text.js';
import { limitClause, type ActorPage } from '../actors/actor-page.js';
import { EventScope, type EventScopeDefinition } from '../actors/event-scope.js';
import { parseEntityParam, type RawInput, type SeriesEntity } from '../filter-model.js';
import { combineAnd, parseProperties, type PropertyGroup } from '../../query/property-filter-model.js';
import type { FunnelFilter } from './funnel-filter.js';
import { funnelPerActorSql } from './funnel-steps-sql.js';

export const CORRELATION_TYPES = ['events', 'event_with_properties', 'properties'] as const;

/** What a correlation row stands for: an event (with properties) done inside the funnel, or person property values. */
export type CorrelationSelection = { kind: 'event'; entity: SeriesEntity } | { kind: 'properties'; properties: PropertyGroup };

function parsePersonEntity(value: unknown): SeriesEntity {
  const attr = 'funnel_correlation_person_entity';
  if (value === undefined || value === null || value === '') throw new ValidationError(attr, 'No entity for persons specified', 'required');
  return parseEntityParam(value, attr, 'No entity for persons specified');
}

export function parseCorrelationSelection(input: RawInput): CorrelationSelection {
  const type = input.funnel_correlation_type ?? 'events';
  if (!(CORRELATION_TYPES as readonly unknown[]).includes(type)) {
    throw new ValidationError('funnel_correlation_type', `funnel_correlation_type must be one of ${CORRELATION_TYPES.join(', ')}.`);
  }
  if (type !== 'properties') return { kind: 'event', entity: parsePersonEntity(input.funnel_correlation_person_entity) };
  const properties = parseProperties(input.funnel_correlation_property_values ?? null, 'funnel_correlation_property_values');
  if (properties.values.length === 0) {
    throw new ValidationError(
      'funnel_correlation_property_values',
      'Property Correlation expects atleast one Property to get persons for',
      'required',
    );
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

export interface CorrelationActorsQuery {
  scope: Omit<EventScopeDefinition, 'properties'>;
  filter: FunnelFilter;
  selection: CorrelationSelection;
  converted: boolean | null;
  page: ActorPage;
}

/**
 * The persons behind one correlation row (insights.md §2.4): persons who entered the funnel,
 * filtered by whether they converted, and either who did the event after entering and before
 * completing (or before the window closed), or whose person properties match.
 */
export async function correlationActorsSql(query: CorrelationActorsQuery): Promise<{ sql: string; params: Record<string, unknown> }> {
  const { filter, selection } = query;
  const properties = selection.kind === 'properties' ? combineAnd(filter.properties, selection.properties) : filter.properties;
  const scope = await EventScope.create({ ...query.scope, properties });
  const perActor = await funnelPerActorSql({ ...filter, properties }, scope, { breakdownValue: null });
  const { params } = scope;
  const steps = params.add(filter.steps.length, 'UInt64');
  const conditions = ['funnel.steps >= 1'];
  if (query.converted === true) conditions.push(`funnel.steps = ${steps}`);
  if (query.converted === false) conditions.push(`funnel.steps < ${steps}`);
  let hits = '';
  if (selection.kind === 'event') {
    const entity = await scope.entityCondition(selection.entity, 'funnel_correlation_person_entity');
    const window = params.add(filter.windowSeconds * 1_000_000, 'Int64');
    hits = `INNER JOIN (
  SELECT ${scope.source.personId} AS hit_actor, toUnixTimestamp64Micro(e.timestamp) AS hit_at
  ${scope.fromWhere([`(${entity})`])}
) AS hits ON hits.hit_actor = funnel.actor`;
    conditions.push('hits.hit_at > funnel.entry_at', `hits.hit_at < if(funnel.final_at >= 0, funnel.final_at, funnel.entry_at + ${window})`);
  }
  const sql = `SELECT toString(funnel.actor) AS actor_id
FROM (${perActor}) AS funnel
${hits}
WHERE ${conditions.join(' AND ')}
GROUP BY funnel.actor
ORDER BY funnel.actor
${limitClause(query.page, params)}`;
  return { sql, params: params.all };
}
