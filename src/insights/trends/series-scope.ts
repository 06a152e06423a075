import type { DateTime } from 'luxon';
import { toWarehouseTime } from '../date-range.js';
import { EventSource } from '../event-source.js';
import type { PropertyGroup, SeriesEntity } from '../filter-model.js';
import { compilePropertyFilters } from '../property-filters.js';
import type { ActionSqlResolver, CohortSqlResolver } from '../resolvers.js';
import { SqlParams } from '../sql-params.js';
import { mathConditions } from './series-math.js';

export interface InsightResolvers {
  cohorts: CohortSqlResolver;
  actions: ActionSqlResolver;
}

/** What every query of one series shares: the project, the entity and its combined property filters. */
export interface SeriesDefinition {
  teamId: number;
  timezone: string;
  entity: SeriesEntity;
  /** Global, entity and test-account filters, ANDed. */
  properties: PropertyGroup;
  resolvers: InsightResolvers;
}

/** Raised when a series names an action the project does not have: PostHog then answers `result: []`. */
export class UnknownAction extends Error {
  constructor(readonly actionId: number) {
    super(`action ${actionId} not found`);
  }
}

/**
 * The parameters, event source and WHERE conditions of one query over a series' events between
 * two bounds (team and timestamp first, so ClickHouse prunes by the table's sort key).
 */
export class SeriesScope {
  private constructor(
    readonly params: SqlParams,
    readonly source: EventSource,
    readonly conditions: string[],
  ) {}

  static async create(series: SeriesDefinition, from: DateTime, to: DateTime): Promise<SeriesScope> {
    const params = new SqlParams();
    params.named('team_id', series.teamId, 'Int64');
    params.named('timezone', series.timezone, 'String');
    const fromText = toWarehouseTime(from);
    const toText = toWarehouseTime(to);
    const source = new EventSource(params, { from: fromText, to: toText });
    const conditions = [
      'e.team_id = {team_id:Int64}',
      `e.timestamp >= ${params.add(fromText, "DateTime64(6, 'UTC')")}`,
      `e.timestamp <= ${params.add(toText, "DateTime64(6, 'UTC')")}`,
    ];
    const { entity } = series;
    if (entity.type === 'events' && entity.id !== null) conditions.push(`e.event = ${params.add(String(entity.id), 'String')}`);
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
    return new SeriesScope(params, source, conditions);
  }

  /** `FROM … WHERE …`; call after every expression of the query has been built. */
  fromWhere(extraConditions: string[] = []): string {
    return `${this.source.fromClause()}\nWHERE ${[...this.conditions, ...extraConditions].join('\n  AND ')}`;
  }
}
