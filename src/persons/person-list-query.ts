import type { PropertyFilter, PropertyGroup } from '../query/property-filter-model.js';
import { compilePropertyFilters } from '../query/property-filters.js';
import type { CohortSqlResolver } from '../query/resolvers.js';
import { SqlParams } from '../query/sql-params.js';
import { PersonRowColumns } from './person-columns.js';
import { isUuid } from './person-id.js';
import { emailFilter, type PersonListFilter } from './person-list-filter.js';
import { CURRENT_DISTINCT_IDS } from '../storage/warehouse/replicas.js';

/**
 * ClickHouse SQL of the person list, on the warehouse replicas. The current row of each person
 * is resolved (FINAL) with only the columns the filters read (the properties JSON is the heavy
 * part; a materialized property column is light), the page is sorted newest first on that lean
 * set; the page's persons are then read from the catalog by key.
 */

function onlyFilter(filter: PropertyFilter): PropertyGroup {
  return { kind: 'group', type: 'AND', values: [filter] };
}

/** UUIDs of the persons that currently own a distinct id. */
function ownerOf(distinctId: string, params: SqlParams): string {
  return `SELECT person_id FROM (${CURRENT_DISTINCT_IDS}) WHERE distinct_id = ${params.add(distinctId, 'String')}`;
}

export interface ListedPersonKey {
  /** The person UUID. */
  person_uuid: string;
  /** The integer id; a string, as 64-bit integers come back from the warehouse. */
  person_number: string;
  /** DateTime64 text, `2024-01-02 03:04:05.123456`. */
  created_text: string;
  /** How many persons match in all, when the page counted them (a string: 64-bit integers come back quoted). */
  total?: string | number;
}

/** Where a keyset chunk starts: after this person in list order. */
export interface ListCursor {
  createdText: string;
  personNumber: string;
}

export class PersonListSql {
  private constructor(
    private readonly params: SqlParams,
    private readonly prefilter: string,
    private readonly condition: string,
    /** The replica columns the condition reads besides the id (see PersonRowColumns). */
    private readonly filterColumns: readonly string[],
  ) {}

  /** `materialized`: the person properties stored by key on the replica (key → column). */
  static async build(teamId: number, filter: PersonListFilter, cohorts: CohortSqlResolver, materialized: ReadonlyMap<string, string>): Promise<PersonListSql> {
    const params = new SqlParams({ team_id: teamId });
    const columns = new PersonRowColumns(materialized);
    const context = { columns, params, cohorts };
    const conditions = [await compilePropertyFilters(filter.properties, context)];
    // Email and search look for a few persons: each adds the persons with ANY stored version that
    // matches as candidates (a plain scan, which ClickHouse's condition cache serves on repeats),
    // so resolving the current versions reads only those persons' granules of the replica's key,
    // (team_id, person_id). The current version is one of the stored ones, so no match is lost; the
    // condition is checked again on it.
    const prefilters: string[] = [];
    const storedVersionsWhere = (condition: string) =>
      `person_id IN (SELECT person.person_id FROM persons AS person WHERE person.team_id = {team_id:Int64} AND ${condition})`;
    if (filter.distinctId !== null) prefilters.push(storedVersionsWhere(`person.id IN (${ownerOf(filter.distinctId, params)})`));
    if (filter.email !== null) {
      const exact = await compilePropertyFilters(onlyFilter(emailFilter('exact', filter.email)), context);
      conditions.push(exact);
      prefilters.push(storedVersionsWhere(exact));
    }
    if (filter.search !== null) {
      const emailMatch = await compilePropertyFilters(onlyFilter(emailFilter('icontains', filter.search)), context);
      const matches = [emailMatch, `person.id IN (${ownerOf(filter.search, params)})`];
      if (isUuid(filter.search)) matches.push(`person.id = ${params.add(filter.search.toLowerCase(), 'UUID')}`);
      const anyMatch = matches.map((match) => `(${match})`).join(' OR ');
      conditions.push(anyMatch);
      prefilters.push(storedVersionsWhere(anyMatch));
    }
    const condition = conditions.map((condition) => `(${condition})`).join(' AND ');
    const prefilter = prefilters.map((candidates) => `AND (${candidates})`).join(' ');
    return new PersonListSql(params, prefilter, condition, [...columns.readColumns]);
  }

  /** The current persons (see replicas.ts), with the property columns the filters read. */
  private currentPersons(): string {
    const read = this.filterColumns.map((column) => `, ${column}`).join('');
    return `SELECT id, person_id, created_at${read}
      FROM persons FINAL
      WHERE team_id = {team_id:Int64} AND is_deleted = 0 ${this.prefilter}`;
  }

  /**
   * The page's keys; text conversions happen after the limit, on the page's rows only. With
   * `withTotal`, each row also carries the number of matches, counted in the same scan.
   */
  private keys(limitClause: string, extraCondition = '', withTotal = false): string {
    const total = withTotal ? ', count() OVER () AS total' : '';
    return `SELECT toString(page_id) AS person_uuid, page_number AS person_number, toString(page_created) AS created_text${withTotal ? ', total' : ''}
      FROM (
        SELECT person.id AS page_id, person.person_id AS page_number, person.created_at AS page_created${total}
        FROM (${this.currentPersons()}) AS person
        WHERE ${this.condition} ${extraCondition}
        ORDER BY person.created_at DESC, person.person_id DESC
        ${limitClause}
      )
      ORDER BY page_created DESC, page_number DESC`;
  }

  /** The matching persons as the rows of an actors page, in no order: `actor` (the UUID), `person_id` and `created_at`. */
  matchingRows(): { sql: string; params: SqlParams } {
    return {
      sql: `SELECT person.id AS actor, person.person_id AS person_id, person.created_at AS created_at
      FROM (${this.currentPersons()}) AS person
      WHERE ${this.condition}`,
      params: this.params.copy(),
    };
  }

  /** The number of matches, when the page did not count them. */
  count(): { sql: string; params: Record<string, unknown> } {
    return {
      sql: `SELECT count() AS total FROM (${this.currentPersons()}) AS person WHERE ${this.condition}`,
      params: this.params.all,
    };
  }

  /**
   * One page of the list. When the filters read properties (the costly part) the page counts the
   * matches in the same scan; a lean list is counted apart, which is cheaper than sorting with a window.
   */
  page(limit: number, offset: number): { sql: string; params: Record<string, unknown> } {
    const params = new SqlParams(this.params.all);
    const limitClause = `LIMIT ${params.named('page_limit', limit, 'UInt64')} OFFSET ${params.named('page_offset', offset, 'UInt64')}`;
    return { sql: this.keys(limitClause, '', this.filterColumns.length > 0), params: params.all };
  }

  /** The next `size` persons after `cursor` (from the start when null): CSV exports walk the list this way. */
  chunk(size: number, cursor: ListCursor | null): { sql: string; params: Record<string, unknown> } {
    const params = new SqlParams(this.params.all);
    const after =
      cursor === null
        ? ''
        : `AND (person.created_at, person.person_id) < (${params.named('after_created', cursor.createdText, "DateTime64(6, 'UTC')")}, ${params.named('after_id', cursor.personNumber, 'Int64')})`;
    return { sql: this.keys(`LIMIT ${params.named('chunk_size', size, 'UInt64')}`, after), params: params.all };
  }
}
