import type { SqlParams } from '../../query/sql-params.js';
import type { ActorPage } from '../actors/actor-page.js';
import { actorPageSql, NEWEST_PERSON_FIRST_THEN_ID } from '../actors/actor-page-sql.js';

/**
 * One page of the person ids `actorsSql` selects (column `actor`, a person UUID), newest person
 * first, then by person id, or in the page's order, ties in that one. Persons deleted since sort
 * last; the hydration counts them as missing.
 */
export function newestPersonsFirst(actorsSql: string, page: ActorPage, params: SqlParams): string {
  return actorPageSql({ sql: `SELECT DISTINCT actor FROM (${actorsSql})`, persons: 'joined', order: NEWEST_PERSON_FIRST_THEN_ID }, page, params);
}
