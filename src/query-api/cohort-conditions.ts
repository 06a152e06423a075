import { ValidationError } from '../errors.js';
import { COHORT_PERSON, cohortIds } from '../hogql/printer.js';
import type { CohortSqlResolver } from '../query/resolvers.js';
import type { SqlParams } from '../query/sql-params.js';

/**
 * The membership condition of every cohort a query's `IN COHORT` names, compiled (from the
 * catalog) before the query is printed. A cohort the project does not have is a 400 on the text.
 */
export async function cohortConditions(query: unknown, cohorts: CohortSqlResolver, params: SqlParams, attr: string): Promise<Map<number, string>> {
  const conditions = new Map<number, string>();
  for (const id of cohortIds(query)) {
    try {
      conditions.set(id, await cohorts.membershipCondition(id, COHORT_PERSON, params));
    } catch (error) {
      if (error instanceof ValidationError) throw new ValidationError(attr, error.detail, 'hogql_query_error');
      throw error;
    }
  }
  return conditions;
}
