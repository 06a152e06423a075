import { DateTime } from 'luxon';
import type { Project } from '../../projects/project.js';
import { EMPTY_PROPERTY_GROUP, type PropertyGroup } from '../../query/property-filter-model.js';
import type { Warehouse } from '../../storage/warehouse/warehouse.js';
import { hydrateActors, type ActorList } from '../actors/actor-list.js';
import type { ActorPage } from '../actors/actor-page.js';
import { EventScope, type EventScopeDefinition } from '../actors/event-scope.js';
import type { PersonHydrator } from '../../persons/person-hydrator.js';
import { ValidationError } from '../../errors.js';
import type { SeriesEntity } from '../filter-model.js';
import { newestPersonsFirst } from './actor-order-sql.js';
import type { CorrelationFilter, CorrelationType } from './correlation-filter.js';
import { CorrelationQuery } from './correlation-sql.js';
import type { FunnelFilter } from './funnel-filter.js';
import type { FunnelRunner } from './funnel-runner.js';
import { correlate, type Correlated, type SuccessFailure } from './odds-ratio.js';

/** What one correlation row stands for. */
export type CorrelationSubject =
  | { kind: 'event'; event: string }
  | { kind: 'event_property'; event: string; property: string; value: string }
  | { kind: 'property'; property: string; value: string };

export type CorrelationRow = Correlated<{ subject: CorrelationSubject; visited: SuccessFailure }>;

/** The correlation runner's answer, independent of any surface's JSON. */
export interface CorrelationResult {
  type: CorrelationType;
  rows: CorrelationRow[];
  skewed: boolean;
  totals: SuccessFailure;
}

/** Which actors of a correlation row: who did the event inside the funnel, or whose properties match. */
export type CorrelationActorsSelection = { kind: 'event'; entity: SeriesEntity } | { kind: 'properties'; properties: PropertyGroup };

export interface CorrelationRunOptions {
  now?: DateTime;
}

function numberOf(value: unknown): number {
  return Number(value);
}

/**
 * THE funnel correlation runner: contingency counts from the funnel runner's
 * per-actor rows, odds ratios, and the actors behind each row from the same queries.
 */
export class CorrelationRunner {
  constructor(
    private readonly warehouse: Warehouse,
    private readonly funnels: FunnelRunner,
  ) {}

  async run(project: Project, filter: CorrelationFilter, options: CorrelationRunOptions = {}): Promise<CorrelationResult> {
    const now = options.now ?? DateTime.now();
    const scope = this.funnels.scopeOf(project, filter.funnel, now);
    const query = await CorrelationQuery.create(this.funnels, scope, filter.funnel);
    const [totalsRow] = await this.warehouse.query<{ success_total: unknown; failure_total: unknown }>(query.totalsSql(), query.params.all);
    const totals = { success: numberOf(totalsRow?.success_total ?? 0), failure: numberOf(totalsRow?.failure_total ?? 0) };
    if (totals.success === 0 || totals.failure === 0) return { type: filter.type, rows: [], skewed: true, totals };
    const rows = await this.contingency(filter, scope, query);
    const correlated = correlate(rows, totals);
    return { type: filter.type, rows: correlated.rows, skewed: correlated.skewed, totals };
  }

  /** The persons behind one correlation row, newest first. */
  async actors(
    project: Project,
    funnel: FunnelFilter,
    selection: CorrelationActorsSelection,
    converted: boolean | null,
    page: ActorPage,
    hydrator: PersonHydrator,
    extra?: PropertyGroup,
  ): Promise<ActorList> {
    if (funnel.aggregationGroupTypeIndex !== null) {
      throw new ValidationError('aggregation_group_type_index', 'Funnel correlation persons are persons: groups cannot be listed here.');
    }
    const properties = selection.kind === 'properties' ? [selection.properties, ...(extra ? [extra] : [])] : extra ? [extra] : [];
    const scope = this.funnels.scopeOf(project, funnel, DateTime.now(), properties.length > 0 ? { kind: 'group', type: 'AND', values: properties } : undefined);
    const query = await CorrelationQuery.create(this.funnels, scope, funnel);
    const actors =
      selection.kind === 'event'
        ? query.actorsWithEventSql(await query.entityCondition(selection.entity, 'funnel_correlation_person_entity'), converted)
        : query.actorsSql(converted);
    const rows = await this.warehouse.query<{ actor_id: string }>(newestPersonsFirst(actors, page, query.params), query.params.all);
    return hydrateActors(
      hydrator,
      project,
      rows.map((row) => row.actor_id),
      page,
    );
  }

  private async contingency(
    filter: CorrelationFilter,
    scope: Omit<EventScopeDefinition, 'params'>,
    query: CorrelationQuery,
  ): Promise<Array<{ subject: CorrelationSubject; visited: SuccessFailure }>> {
    const visited = (row: { success_count: unknown; failure_count: unknown }) => ({
      success: numberOf(row.success_count),
      failure: numberOf(row.failure_count),
    });
    if (filter.type === 'properties') {
      const rows = await this.warehouse.query<{ key: string; value: string; success_count: unknown; failure_count: unknown }>(
        query.propertiesSql(filter.propertyNames, filter.excludePropertyNames),
        query.params.all,
      );
      return rows.map((row) => ({ subject: { kind: 'property', property: row.key, value: row.value }, visited: visited(row) }));
    }
    const stepEvents = await this.stepEventNames(filter.funnel, scope);
    if (filter.type === 'event_with_properties') {
      const rows = await this.warehouse.query<{ event: string; key: string; value: string; success_count: unknown; failure_count: unknown }>(
        query.eventPropertiesSql(stepEvents, filter.eventNames, filter.eventExcludePropertyNames),
        query.params.all,
      );
      return rows.map((row) => ({ subject: { kind: 'event_property', event: row.event, property: row.key, value: row.value }, visited: visited(row) }));
    }
    const rows = await this.warehouse.query<{ event: string; success_count: unknown; failure_count: unknown }>(
      query.eventsSql(stepEvents, filter.excludeEventNames),
      query.params.all,
    );
    return rows.map((row) => ({ subject: { kind: 'event', event: row.event }, visited: visited(row) }));
  }

  /**
   * The event names of the funnel's steps, left out of the correlated events: an action step's
   * names are those of the events in range that match it (as PostHog, which leaves out the
   * events of its action steps by name).
   */
  private async stepEventNames(funnel: FunnelFilter, scope: Omit<EventScopeDefinition, 'params'>): Promise<string[]> {
    const names = new Set<string>();
    const actions: SeriesEntity[] = [];
    for (const step of funnel.steps) {
      if (step.type === 'actions') actions.push(step);
      else if (step.id !== null) names.add(String(step.id));
    }
    if (actions.length > 0) {
      const events = await EventScope.create({ ...scope, properties: EMPTY_PROPERTY_GROUP });
      const conditions: string[] = [];
      for (const action of actions) conditions.push(`(${await events.entityCondition({ ...action, properties: EMPTY_PROPERTY_GROUP }, 'actions')})`);
      const rows = await this.warehouse.query<{ event: string }>(
        `SELECT DISTINCT e.event AS event ${events.fromWhere([`(${conditions.join(' OR ')})`])}`,
        events.params.all,
      );
      for (const row of rows) names.add(row.event);
    }
    return [...names].sort();
  }
}
