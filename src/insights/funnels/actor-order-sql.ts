import { CURRENT_PERSONS } from '../../storage/warehouse/replicas.js';
import type { SqlParams } from '../../query/sql-params.js';
import { limitClause, type ActorPage } from '../actors/actor-page.js';

/**
 * One page of the person ids `actorsSql` selects (column `actor`, a person UUID), newest person
 * first, then by person id (DECISIONS.md). Persons deleted since sort last; the hydration counts
 * them as missing. The actors are the join's hash table, the project's persons stream past it.
 */
export function newestPersonsFirst(actorsSql: string, page: ActorPage, params: SqlParams): string {
  return `SELECT toString(funnel.actor) AS actor_id
FROM (SELECT id, person_id, created_at FROM (${CURRENT_PERSONS})) AS person
RIGHT JOIN (SELECT DISTINCT actor FROM (${actorsSql})) AS funnel ON person.id = funnel.actor
ORDER BY person.created_at DESC, person.person_id DESC, funnel.actor
${limitClause(page, params)}`;
}
