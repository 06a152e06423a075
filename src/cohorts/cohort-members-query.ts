import { SqlParams } from '../query/sql-params.js';
import { CURRENT_PERSONS } from '../storage/warehouse/replicas.js';
import type { Cohort } from './cohort.js';
import type { CohortSqlCompiler } from './cohort-sql.js';

/** Warehouse SQL over a cohort's members: how many, which ones (newest first), and whether one person is. */
export class CohortMembersQuery {
  private constructor(
    private readonly params: SqlParams,
    private readonly members: string,
  ) {}

  static async build(compiler: CohortSqlCompiler, cohort: Cohort): Promise<CohortMembersQuery> {
    const params = new SqlParams({ team_id: cohort.teamId });
    return new CohortMembersQuery(params, await compiler.membersQuery(cohort, params));
  }

  count(): { sql: string; params: Record<string, unknown> } {
    return {
      sql: `SELECT count() AS total FROM (${CURRENT_PERSONS}) AS listed WHERE listed.id IN (${this.members})`,
      params: this.params.all,
    };
  }

  /** Member UUIDs in the person list's order: newest first, then highest id. */
  page(limit: number, offset: number): { sql: string; params: Record<string, unknown> } {
    const params = new SqlParams(this.params.all);
    return {
      sql: `SELECT toString(listed.id) AS person_uuid FROM (${CURRENT_PERSONS}) AS listed
        WHERE listed.id IN (${this.members})
        ORDER BY listed.created_at DESC, listed.person_id DESC
        LIMIT ${params.named('page_limit', limit, 'UInt64')} OFFSET ${params.named('page_offset', offset, 'UInt64')}`,
      params: params.all,
    };
  }

  contains(personUuid: string): { sql: string; params: Record<string, unknown> } {
    const params = new SqlParams(this.params.all);
    return {
      sql: `SELECT ${params.named('member_uuid', personUuid, 'UUID')} IN (${this.members}) AS is_member`,
      params: params.all,
    };
  }
}
