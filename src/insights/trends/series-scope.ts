import type { DateTime } from 'luxon';
import { toWarehouseTime } from '../../query/date-range.js';
import { EventSource } from '../../query/event-source.js';
import type { SeriesEntity } from '../filter-model.js';
import type { PropertyGroup } from '../../query/property-filter-model.js';
import { compilePropertyFilters } from '../../query/property-filters.js';
import type { SqlResolvers } from '../../query/resolvers.js';
import { SqlParams } from '../../query/sql-params.js';
import { mathConditions } from './series-math.js';

/** What every query of one series shares: the project, the entity and its combined property filters. */
export interface SeriesDefinition {
  teamId: number;
  timezone: string;
  entity: SeriesEntity;
  /** Global, entity and test-account filters, ANDed. */
  properties: PropertyGroup;
  resolvers: SqlResolvers;
}

/** Raised when a series names an action the project does not have: PostHog then answers `result: []`. */
export class UnknownAction extends Error {
  constructor(readonly actionId: number) {
    super(`action ${actionId} not found`);
  }
}

/** The project and time bounds of a query, with the parameters and event source its series share. */
export class RangeScope {
  protected constructor(
    readonly params: SqlParams,
    readonly source: EventSource,
    /** Project and time bounds (and a series' event name): what the scan reads first. */
    readonly scan: string[],
    readonly conditions: string[],
  ) {}

  static forRange(project: Pick<SeriesDefinition, 'teamId' | 'timezone' | 'resolvers'>, from: DateTime, to: DateTime): RangeScope {
    const params = new SqlParams();
    params.named('team_id', project.teamId, 'Int64');
    params.named('timezone', project.timezone, 'String');
    const fromText = toWarehouseTime(from);
    const toText = toWarehouseTime(to);
    const source = new EventSource(params, { from: fromText, to: toText }, project.resolvers.eventColumns);
    const scan = [
      'e.team_id = {team_id:Int64}',
      `e.timestamp >= ${params.add(fromText, "DateTime64(6, 'UTC')")}`,
      `e.timestamp <= ${params.add(toText, "DateTime64(6, 'UTC')")}`,
    ];
    return new RangeScope(params, source, scan, []);
  }

  /** `FROM … PREWHERE … WHERE …`; call after every expression of the query has been built. */
  fromWhere(extraConditions: string[] = []): string {
    return this.source.fromPrewhere(this.scan, [...this.conditions, ...extraConditions]);
  }
}

/**
 * The parameters, event source and conditions of one query over a series' events between two
 * bounds (team, timestamp and event name read first, so ClickHouse prunes by the table's sort key).
 */
export class SeriesScope extends RangeScope {
  static async create(series: SeriesDefinition, from: DateTime, to: DateTime): Promise<SeriesScope> {
    const range = RangeScope.forRange(series, from, to);
    const event = eventNameCondition(series.entity, range.params);
    const matching = await seriesConditions(series, range.source, range.params, false);
    return new SeriesScope(range.params, range.source, event ? [...range.scan, event] : range.scan, matching);
  }
}

/** `e.event = …` for an entity that is one named event; null for an action or every event. */
export function eventNameCondition(entity: SeriesEntity, params: SqlParams): string | null {
  return entity.type === 'events' && entity.id !== null ? `e.event = ${params.add(String(entity.id), 'String')}` : null;
}

/**
 * The conditions an event meets to count in a series: its event (unless `withEventName` is false:
 * the caller reads it first) or action, property filters and math.
 */
export async function seriesConditions(series: SeriesDefinition, source: EventSource, params: SqlParams, withEventName = true): Promise<string[]> {
  const conditions: string[] = [];
  const { entity } = series;
  const event = withEventName ? eventNameCondition(entity, params) : null;
  if (event) conditions.push(event);
  if (entity.type === 'actions') {
    const action = await series.resolvers.actions.resolve(Number(entity.id), source, params);
    if (!action) throw new UnknownAction(Number(entity.id));
    conditions.push(`(${action.condition})`);
  }
  const properties = await compilePropertyFilters(series.properties, {
    columns: source,
    params,
    cohorts: series.resolvers.cohorts,
  });
  if (properties !== '1') conditions.push(`(${properties})`);
  conditions.push(...mathConditions(entity.math));
  return conditions;
}
