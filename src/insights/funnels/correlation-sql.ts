import { EMPTY_PROPERTY_GROUP } from '../../query/property-filter-model.js';
import { rawPropertyValue } from '../../query/property-filters.js';
import type { SqlParams } from '../../query/sql-params.js';
import { CURRENT_GROUPS, CURRENT_PERSONS } from '../../storage/warehouse/replicas.js';
import { EventScope, type EventScopeDefinition } from '../actors/event-scope.js';
import type { SeriesEntity } from '../filter-model.js';
import type { FunnelFilter } from './funnel-filter.js';
import type { FunnelRunner } from './funnel-runner.js';

/** A JSON value as text: strings decoded, anything else as its JSON (as property filters read values). */
const DECODED = `if(startsWith(kv.2, '"'), JSONExtractString(kv.2), kv.2)`;

/**
 * The SQL of funnel correlation over THE funnel's per-actor rows: the
 * population is every actor who entered the funnel, a success one who completed it. Correlated
 * events are the population's events after their entry into the funnel and before they
 * completed it (or the window closed), whatever the funnel's filters; correlated properties are
 * the current properties of the actor. Aggregates and actor lists share these queries, so a
 * row's counts are its actors.
 */
export class CorrelationQuery {
  private constructor(
    private readonly population: string,
    private readonly hits: EventScope,
    private readonly funnel: FunnelFilter,
    private readonly window: string,
  ) {}

  static async create(runner: FunnelRunner, scope: Omit<EventScopeDefinition, 'params'>, funnel: FunnelFilter): Promise<CorrelationQuery> {
    const { sql, scope: events } = await runner.perActor(scope, funnel);
    const hits = await EventScope.create({ ...scope, properties: EMPTY_PROPERTY_GROUP, params: events.params });
    return new CorrelationQuery(sql, hits, funnel, events.params.add(funnel.windowSeconds * 1_000_000, 'Int64'));
  }

  get params(): SqlParams {
    return this.hits.params;
  }

  private get lastStep(): string {
    return this.params.add(this.funnel.steps.length, 'UInt64');
  }

  /** `actor, steps, entry_at, final_at` of the actors who entered the funnel; `converted` keeps the successes (true) or failures (false). */
  populationSql(converted: boolean | null = null): string {
    const conditions = ['steps >= 1'];
    if (converted === true) conditions.push(`steps = ${this.lastStep}`);
    if (converted === false) conditions.push(`steps < ${this.lastStep}`);
    return `SELECT actor, steps, entry_at, final_at FROM (${this.population}) WHERE ${conditions.join(' AND ')}`;
  }

  /** `success_total, failure_total`: the population by conversion. */
  totalsSql(): string {
    const last = this.lastStep;
    return `SELECT countIf(steps = ${last}) AS success_total, countIf(steps < ${last}) AS failure_total FROM (${this.populationSql()})`;
  }

  /** An SQL condition on the hit event `e` for an entity (its event name or action, and its properties). */
  entityCondition(entity: SeriesEntity, attr: string): Promise<string> {
    return this.hits.entityCondition(entity, attr);
  }

  /**
   * The population's events inside their funnel time (`actor`, `steps` and `hit_columns` of the
   * event), for events meeting `conditions`. Build every condition on `e` before calling.
   */
  private hitsSql(columns: Array<[expression: string, alias: string]>, conditions: string[], converted: boolean | null = null): string {
    const group = this.funnel.aggregationGroupTypeIndex;
    const actor = group === null ? this.hits.source.personId : `e.\`$group_${group}\``;
    const hitConditions = group === null ? conditions : [...conditions, `e.\`$group_${group}\` != ''`];
    const inner = columns.map(([expression, alias]) => `, ${expression} AS ${alias}`).join('');
    const outer = columns.map(([, alias]) => `, hits.${alias} AS ${alias}`).join('');
    return `SELECT actors.actor AS actor, actors.steps AS steps${outer}
FROM (
  SELECT ${actor} AS hit_actor, toUnixTimestamp64Micro(e.timestamp) AS hit_at${inner}
  ${this.hits.fromWhere(hitConditions)}
) AS hits
INNER JOIN (${this.populationSql(converted)}) AS actors ON actors.actor = hits.hit_actor
WHERE hits.hit_at > actors.entry_at AND hits.hit_at < if(actors.final_at >= 0, actors.final_at, actors.entry_at + ${this.window})`;
  }

  /** `event, success_count, failure_count`: actors per event name, steps' events and excluded names left out. */
  eventsSql(stepEventNames: string[], excludedNames: string[]): string {
    const last = this.lastStep;
    const conditions = [
      `e.event NOT IN ${this.params.add(stepEventNames, 'Array(String)')}`,
      `e.event NOT IN ${this.params.add(excludedNames, 'Array(String)')}`,
    ];
    return `SELECT hit_event AS event, uniqExactIf(actor, steps = ${last}) AS success_count, uniqExactIf(actor, steps < ${last}) AS failure_count
FROM (${this.hitsSql([['e.event', 'hit_event']], conditions)})
GROUP BY event`;
  }

  /**
   * `event, key, value, success_count, failure_count`: actors per property value of the listed
   * events; rows of two actors or fewer are the long tail PostHog leaves out.
   */
  eventPropertiesSql(stepEventNames: string[], eventNames: string[], excludedProperties: string[]): string {
    const last = this.lastStep;
    const conditions = [`e.event IN ${this.params.add(eventNames, 'Array(String)')}`, `e.event NOT IN ${this.params.add(stepEventNames, 'Array(String)')}`];
    const hits = this.hitsSql(
      [
        ['e.event', 'hit_event'],
        ['JSONExtractKeysAndValuesRaw(e.properties)', 'hit_properties'],
      ],
      conditions,
    );
    return `SELECT hit_event AS event, prop.1 AS key, prop.2 AS value,
  uniqExactIf(actor, steps = ${last}) AS success_count, uniqExactIf(actor, steps < ${last}) AS failure_count
FROM (${hits})
ARRAY JOIN arrayMap(kv -> (kv.1, ${DECODED}), hit_properties) AS prop
WHERE prop.1 NOT IN ${this.params.add(excludedProperties, 'Array(String)')}
GROUP BY event, key, value
HAVING success_count + failure_count > 2`;
  }

  /**
   * `key, value, success_count, failure_count`: actors per current person (or group) property
   * value; `$all` reads every property an actor has, else each name (empty when missing).
   */
  propertiesSql(names: string[], excludedNames: string[]): string {
    const { params } = this;
    const last = this.lastStep;
    const group = this.funnel.aggregationGroupTypeIndex;
    const owners =
      group === null
        ? `SELECT id, properties FROM (${CURRENT_PERSONS})`
        : `SELECT group_key AS id, group_properties AS properties FROM (${CURRENT_GROUPS}) WHERE group_type_index = ${params.add(group, 'UInt8')}`;
    const values = names.includes('$all')
      ? `arrayMap(kv -> (kv.1, ${DECODED}), JSONExtractKeysAndValuesRaw(properties))`
      : `arrayZip(${params.add(names, 'Array(String)')}, [${names.map((name) => rawPropertyValue('properties', name, params)).join(', ')}])`;
    return `SELECT prop.1 AS key, prop.2 AS value, uniqExactIf(actor, steps = ${last}) AS success_count, uniqExactIf(actor, steps < ${last}) AS failure_count
FROM (
  SELECT actors.actor AS actor, actors.steps AS steps, owner.properties AS properties
  FROM (${owners}) AS owner
  INNER JOIN (${this.populationSql()}) AS actors ON owner.id = actors.actor
)
ARRAY JOIN ${values} AS prop
WHERE prop.1 NOT IN ${params.add(excludedNames, 'Array(String)')}
GROUP BY key, value`;
  }

  /** `actor`: the population's actors with an event meeting `condition` inside their funnel time. */
  actorsWithEventSql(condition: string, converted: boolean | null): string {
    return this.hitsSql([], [`(${condition})`], converted);
  }

  /** `actor`: the population's actors (successes or failures). */
  actorsSql(converted: boolean | null): string {
    return this.populationSql(converted);
  }
}
