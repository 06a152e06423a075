import { ValidationError } from '../errors.js';
import type { PropertyColumns } from './property-filters.js';
import type { SqlParams } from './sql-params.js';

/**
 * How insight SQL learns about cohorts and actions, which live in the catalog: the compiler asks
 * these, so the query layer reads no catalog itself. The cohorts and actions modules answer them;
 * `noCohorts` and `noActions` answer queries that take neither.
 */
export interface CohortSqlResolver {
  /** A condition true when the person `personId` (an SQL expression) belongs to the cohort. Unknown cohort: ValidationError. */
  membershipCondition(cohortId: number, personId: string, params: SqlParams): Promise<string>;
  /** The name of the project's cohort, for breakdown labels. A cohort the project does not have: ValidationError. */
  cohortName(cohortId: number, teamId: number): Promise<string>;
}

export interface ResolvedAction {
  name: string;
  /** A condition on the events row (and the columns it reads) true when the event matches the action. */
  condition: string;
}

export interface ActionSqlResolver {
  /** The action's name and matching condition, or null when the project has no such action. */
  resolve(actionId: number, columns: PropertyColumns, params: SqlParams): Promise<ResolvedAction | null>;
  /** The name of the project's action, for series labels; null when the project has no such action. */
  actionName(actionId: number, teamId: number): Promise<string | null>;
}

/** Which event properties the events table holds in a column of their own (see MaterializedProperties). */
export interface EventPropertyColumnResolver {
  /** The column of the key when there is one now; undefined sends the read to the JSON. */
  columnOf(key: string): string | undefined;
}

/** What SQL built from filters asks about the catalog and the warehouse's columns. */
export interface SqlResolvers {
  cohorts: CohortSqlResolver;
  actions: ActionSqlResolver;
  /** Without it, every event property is read from the JSON. */
  eventColumns?: EventPropertyColumnResolver;
}

/** For queries that take no cohort filters (person values): every cohort id is unknown. */
export const noCohorts: CohortSqlResolver = {
  async membershipCondition(cohortId) {
    throw new ValidationError('properties', `Cohort ${cohortId} does not exist.`);
  },
  async cohortName(cohortId) {
    throw new ValidationError('breakdown', `Cohort ${cohortId} does not exist.`);
  },
};

/** For queries that take no actions: every action id is unknown. */
export const noActions: ActionSqlResolver = {
  async resolve(actionId) {
    throw new ValidationError('actions', `Action ${actionId} does not exist.`);
  },
  async actionName() {
    return null;
  },
};
