import type { SqlResolvers } from '../../query/resolvers.js';
import type { DateTime } from 'luxon';
import { ValidationError } from '../../errors.js';
import { toWarehouseTime } from '../../query/date-range.js';
import { EventSource } from '../../query/event-source.js';
import type { SeriesEntity } from '../filter-model.js';
import type { PropertyGroup } from '../../query/property-filter-model.js';
import { compilePropertyFilters } from '../../query/property-filters.js';
import { SqlParams } from '../../query/sql-params.js';
import { eventNameCondition } from '../trends/series-scope.js';

/** Where and when the events of a multi-entity query (funnels, retention, paths) come from. */
export interface EventScopeDefinition {
  teamId: number;
  timezone: string;
  /** Inclusive lower bound; null reads from the first event. */
  from: DateTime | null;
  /** Upper bound; null reads to the last event. */
  to: DateTime | null;
  /** True when events at `to` are outside (periods that end where the next starts). */
  toExclusive?: boolean;
  /** Global and test-account filters, ANDed; they apply to every event read. */
  properties: PropertyGroup;
  resolvers: SqlResolvers;
  /** Parameters shared with another scope of the same query (a funnel inside a paths query). */
  params?: SqlParams;
}

/**
 * The parameters, event source and WHERE conditions of a query over the events of several
 * entities at once: each entity becomes a condition (`entityCondition`) the query can use in
 * flags or filters. Team and timestamp are read first (PREWHERE), and prune by the sort key.
 */
export class EventScope {
  private constructor(
    readonly params: SqlParams,
    readonly source: EventSource,
    /** Project and time bounds: what the scan reads first. */
    private readonly scan: string[],
    private readonly conditions: string[],
    private readonly resolvers: SqlResolvers,
  ) {}

  static async create(definition: EventScopeDefinition): Promise<EventScope> {
    const params = definition.params ?? new SqlParams();
    params.named('team_id', definition.teamId, 'Int64');
    params.named('timezone', definition.timezone, 'String');
    const fromText = definition.from ? toWarehouseTime(definition.from) : '1970-01-01 00:00:00.000000';
    const toText = definition.to ? toWarehouseTime(definition.to) : '2200-01-01 00:00:00.000000';
    const source = new EventSource(params, { from: fromText, to: toText }, definition.resolvers.eventColumns);
    const scan = ['e.team_id = {team_id:Int64}'];
    if (definition.from) scan.push(`e.timestamp >= ${params.add(fromText, "DateTime64(6, 'UTC')")}`);
    if (definition.to) scan.push(`e.timestamp ${definition.toExclusive ? '<' : '<='} ${params.add(toText, "DateTime64(6, 'UTC')")}`);
    const properties = await compilePropertyFilters(definition.properties, { columns: source, params, cohorts: definition.resolvers.cohorts });
    return new EventScope(params, source, scan, properties !== '1' ? [`(${properties})`] : [], definition.resolvers);
  }

  /** True for events of the entity (its event name or action, and its own properties). */
  async entityCondition(entity: SeriesEntity, attr: string): Promise<string> {
    const parts: string[] = [];
    const event = eventNameCondition(entity, this.params);
    if (event) parts.push(event);
    if (entity.type === 'actions') {
      const action = await this.resolvers.actions.resolve(Number(entity.id), this.source, this.params);
      if (!action) throw new ValidationError(attr, `Action ${entity.id} does not exist.`);
      parts.push(`(${action.condition})`);
    }
    const properties = await compilePropertyFilters(entity.properties, {
      columns: this.source,
      params: this.params,
      cohorts: this.resolvers.cohorts,
    });
    if (properties !== '1') parts.push(`(${properties})`);
    return parts.length === 0 ? '1' : parts.join(' AND ');
  }

  /** True when the event's person is in the cohort. */
  cohortMembership(cohortId: number): Promise<string> {
    return this.resolvers.cohorts.membershipCondition(cohortId, this.source.personId, this.params);
  }

  /**
   * `e.event IN (…)` when every entity is a named event (whatever its own properties): a
   * condition each of them implies, for `fromWhere` to read first. Null when one is an action or
   * every event.
   */
  eventNamesScan(entities: readonly SeriesEntity[]): string | null {
    const names = new Set<string>();
    for (const entity of entities) {
      if (entity.type !== 'events' || entity.id === null) return null;
      names.add(String(entity.id));
    }
    return names.size === 0 ? null : `e.event IN ${this.params.add([...names], 'Array(String)')}`;
  }

  /**
   * `FROM … PREWHERE … WHERE …`; call after every expression of the query has been built.
   * `extraScan` (null entries skipped) joins the project and time bounds in what is read first.
   */
  fromWhere(extraConditions: string[] = [], extraScan: readonly (string | null)[] = []): string {
    const scan = [...this.scan, ...extraScan.filter((condition): condition is string => condition !== null)];
    return this.source.fromPrewhere(scan, [...this.conditions, ...extraConditions]);
  }
}
