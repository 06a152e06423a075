import { DateTime } from 'luxon';
import { ActionSqlCompiler } from '../actions/action-sql.js';
import type { ActionRepository } from '../actions/action-repository.js';
import { boundTeamId } from '../actions/bound-team.js';
import { ValidationError } from '../errors.js';
import { toWarehouseTime } from '../query/date-range.js';
import { EventSource } from '../query/event-source.js';
import type { PropertyFilter } from '../query/property-filter-model.js';
import { compilePropertyFilters, type PropertyColumns } from '../query/property-filters.js';
import type { CohortSqlResolver } from '../query/resolvers.js';
import type { SqlParams } from '../query/sql-params.js';
import { CURRENT_PERSONS } from '../storage/warehouse/replicas.js';
import { BehaviourAggregates } from './behavioral-sql.js';
import type { Cohort } from './cohort.js';
import { parseCohortFilters } from './cohort-filter-parser.js';
import type { CohortNode } from './cohort-filter-model.js';
import type { CohortRepository } from './cohort-repository.js';

/** Where person filters read inside a cohort query: the current persons, aliased `person`. */
const PERSON_COLUMNS: PropertyColumns = {
  personProperties: 'person.properties',
  personId: 'person.id',
  get eventProperties(): string {
    throw new ValidationError('filters', 'Cohort filters cannot read event properties outside behavioural filters.');
  },
  get elementsChain(): string {
    throw new ValidationError('filters', 'Cohort filters cannot read elements outside behavioural filters.');
  },
  get sessionDuration(): string {
    throw new ValidationError('filters', 'Cohort filters cannot read sessions.');
  },
  groupProperties(): string {
    throw new ValidationError('filters', 'Cohort filters cannot read group properties.');
  },
};

function single(filter: PropertyFilter) {
  return { kind: 'group' as const, type: 'AND' as const, values: [filter] };
}

/**
 * Compiles cohorts to membership SQL at query time, so membership always reflects the data the
 * query reads: static cohorts read their replicated member list; dynamic cohorts become one
 * SELECT of person UUIDs over the current persons, with person filters from the shared
 * compiler, nested cohorts inlined as subqueries and behavioural filters as per-person
 * aggregates over the events.
 */
export class CohortSqlCompiler implements CohortSqlResolver {
  readonly actions: ActionSqlCompiler;

  constructor(
    private readonly cohorts: CohortRepository,
    actions: ActionRepository,
  ) {
    this.actions = new ActionSqlCompiler(actions, this);
  }

  async membershipCondition(cohortId: number, personId: string, params: SqlParams): Promise<string> {
    const cohort = await this.cohorts.find(boundTeamId(params), cohortId);
    if (!cohort) throw new ValidationError('properties', `Cohort ${cohortId} does not exist.`);
    return `${personId} IN (${await this.membersQuery(cohort, params)})`;
  }

  async cohortName(cohortId: number, teamId: number): Promise<string> {
    const cohort = await this.cohorts.find(teamId, cohortId);
    if (!cohort) throw new ValidationError('breakdown', `Cohort ${cohortId} does not exist.`);
    return cohort.name ?? '';
  }

  /** A SELECT of the UUIDs of the cohort's current members. */
  async membersQuery(cohort: Cohort, params: SqlParams, now: DateTime = DateTime.utc()): Promise<string> {
    if (cohort.isStatic) {
      return `SELECT person_id FROM static_cohort_members
        WHERE team_id = {team_id:Int64} AND cohort_id = ${params.add(cohort.id, 'Int64')}
        GROUP BY person_id HAVING argMax(is_deleted, version) = 0`;
    }
    // Behaviour may look back over the whole history, so an action step's session filter measures sessions over all of it.
    const source = new EventSource(params, { from: toWarehouseTime(DateTime.fromMillis(0, { zone: 'utc' })), to: toWarehouseTime(now) });
    const behaviour = new BehaviourAggregates(
      params,
      source,
      {
        entity: async (entity) => {
          if (entity.type === 'events') return `e.event = ${params.add(entity.event, 'String')}`;
          const action = await this.actions.resolve(entity.actionId, source, params);
          if (!action) throw new ValidationError('filters', `Action ${entity.actionId} does not exist.`);
          return action.condition;
        },
        eventFilters: (filter) => compilePropertyFilters(filter.eventFilters, { columns: source, params, cohorts: this }),
      },
      now,
    );
    const where = await this.condition(parseCohortFilters(cohort.filters), params, behaviour);
    const join = behaviour.isEmpty ? '' : behaviour.joinClause('person.id');
    return `SELECT person.id FROM (${CURRENT_PERSONS}) AS person ${join} WHERE ${where}`;
  }

  private async condition(node: CohortNode, params: SqlParams, behaviour: BehaviourAggregates): Promise<string> {
    switch (node.kind) {
      case 'group': {
        const parts: string[] = [];
        for (const child of node.values) parts.push(`(${await this.condition(child, params, behaviour)})`);
        return parts.length === 0 ? '1' : parts.join(node.type === 'OR' ? ' OR ' : ' AND ');
      }
      case 'person':
        return compilePropertyFilters(single(node.filter), { columns: PERSON_COLUMNS, params, cohorts: this });
      case 'cohort': {
        const reference: PropertyFilter = {
          kind: 'filter',
          type: 'cohort',
          key: 'id',
          value: node.cohortId,
          operator: 'exact',
          groupTypeIndex: null,
          negation: node.negation,
        };
        return compilePropertyFilters(single(reference), { columns: PERSON_COLUMNS, params, cohorts: this });
      }
      case 'behavioral': {
        const column = await behaviour.add(node);
        return node.negation ? `NOT ${column}` : column;
      }
    }
  }
}
