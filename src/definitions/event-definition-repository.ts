import { v7 as uuidv7 } from 'uuid';
import { sql, type Expression, type ExpressionBuilder, type SelectQueryBuilder, type SqlBool, type Updateable } from 'kysely';
import type { CatalogDb, CatalogTransaction } from '../storage/catalog/catalog.js';
import type { CatalogDialect } from '../storage/catalog/dialect.js';
import type { CatalogSchema, EventDefinitionTable } from '../storage/catalog/schema.js';
import { chunks } from '../util/chunks.js';
import { parseJsonColumn } from '../util/json.js';
import type { EventDefinition, EventDefinitionFilter, EventDefinitionOrder, UserSummary } from './event-definition.js';
import { byteOrdered, containsEveryTerm } from './name-sql.js';

/** A definition row with its owner's and verifier's user columns. */
type EventDefinitionRow = EventDefinitionTable & {
  owner_uuid: string | null;
  owner_first_name: string | null;
  owner_email: string | null;
  verifier_uuid: string | null;
  verifier_first_name: string | null;
  verifier_email: string | null;
};

function userSummary(id: number | null, uuid: string | null, firstName: string | null, email: string | null): UserSummary | null {
  if (id === null || uuid === null) return null;
  return { id: Number(id), uuid, firstName: firstName ?? '', email: email ?? '' };
}

function toEventDefinition(row: EventDefinitionRow): EventDefinition {
  return {
    id: row.id,
    teamId: Number(row.team_id),
    name: row.name,
    createdAt: row.created_at,
    lastSeenAt: row.last_seen_at,
    updatedAt: row.updated_at,
    description: row.description,
    tags: parseJsonColumn<string[]>(row.tags, []),
    verified: Number(row.verified) === 1,
    verifiedAt: row.verified_at,
    verifiedBy: userSummary(row.verified_by_id, row.verifier_uuid, row.verifier_first_name, row.verifier_email),
    hidden: Number(row.hidden) === 1,
    owner: userSummary(row.owner_id, row.owner_uuid, row.owner_first_name, row.owner_email),
  };
}

export interface EventDefinitionChanges {
  description?: string | null;
  tags?: string[];
  verified?: boolean;
  verifiedAt?: string | null;
  verifiedById?: number | null;
  hidden?: boolean;
  ownerId?: number | null;
}

/** Definitions per insert statement: eight parameters each, well under every bound-parameter limit. */
const ROWS_PER_STATEMENT = 500;

export class EventDefinitionRepository {
  constructor(
    private readonly db: CatalogDb,
    private readonly dialect: CatalogDialect,
  ) {}

  withTransaction(trx: CatalogTransaction): EventDefinitionRepository {
    return new EventDefinitionRepository(trx, this.dialect);
  }

  /**
   * Records that events of these names were seen at `seenAt` (ISO): creates the definitions
   * missing, and moves `last_seen_at` of the others forward, never back. Rows are written in
   * the order given.
   */
  async recordSeen(teamId: number, names: readonly string[], seenAt: string): Promise<void> {
    for (const chunk of chunks(names, ROWS_PER_STATEMENT)) {
      await this.db
        .insertInto('event_definitions')
        .values(
          chunk.map((name) => ({
            id: uuidv7(),
            team_id: teamId,
            name,
            created_at: seenAt,
            last_seen_at: seenAt,
            tags: '[]',
            verified: 0,
            hidden: 0,
          })),
        )
        .onConflict((conflict) =>
          conflict
            .columns(['team_id', 'name'])
            .doUpdateSet({ last_seen_at: (eb) => eb.ref('excluded.last_seen_at') })
            .where((eb) =>
              eb.or([eb('event_definitions.last_seen_at', 'is', null), eb('event_definitions.last_seen_at', '<', eb.ref('excluded.last_seen_at'))]),
            ),
        )
        .execute();
    }
  }

  async list(
    teamId: number,
    filter: EventDefinitionFilter,
    page: { limit: number; offset: number },
  ): Promise<{ total: number; definitions: EventDefinition[] }> {
    const matching = this.db
      .selectFrom('event_definitions')
      .where('event_definitions.team_id', '=', teamId)
      .where((eb) => this.matches(eb, filter));
    const total = await matching.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    let query = this.withUsers(matching);
    for (const order of this.orderOf(filter)) query = query.orderBy(order);
    const rows = await query.limit(page.limit).offset(page.offset).execute();
    return { total: Number(total.n), definitions: rows.map(toEventDefinition) };
  }

  async find(teamId: number, id: string): Promise<EventDefinition | undefined> {
    const row = await this.withUsers(
      this.db.selectFrom('event_definitions').where('event_definitions.team_id', '=', teamId).where('event_definitions.id', '=', id),
    ).executeTakeFirst();
    return row && toEventDefinition(row);
  }

  async update(teamId: number, id: string, changes: EventDefinitionChanges, now: string): Promise<void> {
    const values: Updateable<EventDefinitionTable> = { updated_at: now };
    if (changes.description !== undefined) values.description = changes.description;
    if (changes.tags !== undefined) values.tags = JSON.stringify(changes.tags);
    if (changes.verified !== undefined) values.verified = changes.verified ? 1 : 0;
    if (changes.verifiedAt !== undefined) values.verified_at = changes.verifiedAt;
    if (changes.verifiedById !== undefined) values.verified_by_id = changes.verifiedById;
    if (changes.hidden !== undefined) values.hidden = changes.hidden ? 1 : 0;
    if (changes.ownerId !== undefined) values.owner_id = changes.ownerId;
    await this.db.updateTable('event_definitions').set(values).where('team_id', '=', teamId).where('id', '=', id).execute();
  }

  async delete(teamId: number, id: string): Promise<boolean> {
    const result = await this.db.deleteFrom('event_definitions').where('team_id', '=', teamId).where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** The user with this id in the organization, if any (owners must be members). */
  async findUserInOrganization(userId: number, organizationId: string): Promise<boolean> {
    const row = await this.db.selectFrom('users').select('id').where('id', '=', userId).where('organization_id', '=', organizationId).executeTakeFirst();
    return row !== undefined;
  }

  private matches(eb: ExpressionBuilder<CatalogSchema, 'event_definitions'>, filter: EventDefinitionFilter) {
    const conditions: Expression<SqlBool>[] = [];
    if (filter.searchTerms.length > 0) conditions.push(containsEveryTerm('event_definitions.name', filter.searchTerms));
    if (filter.eventType === 'event_custom') conditions.push(sql<SqlBool>`substr(event_definitions.name, 1, 1) <> '$'`);
    if (filter.eventType === 'event_posthog') conditions.push(sql<SqlBool>`substr(event_definitions.name, 1, 1) = '$'`);
    if (filter.excludedNames.length > 0) conditions.push(eb('event_definitions.name', 'not in', filter.excludedNames));
    if (filter.names.length > 0) conditions.push(eb('event_definitions.name', 'in', filter.names));
    return eb.and(conditions);
  }

  /**
   * PostHog's order: the requested keys (ascending puts never-seen first, descending last), or
   * by default the most recently seen day first; a search without ordering puts shorter names
   * first. The name always breaks ties.
   */
  private orderOf(filter: EventDefinitionFilter) {
    const orders = filter.ordering.map((order) => this.orderTerm(order));
    if (orders.length === 0) {
      if (filter.searchTerms.length > 0) orders.push(sql`length(event_definitions.name) asc`);
      orders.push(this.orderTerm({ field: 'last_seen_at', byDay: true, descending: true }));
    }
    orders.push(sql`${byteOrdered(this.dialect, 'event_definitions.name')} asc`);
    return orders;
  }

  private orderTerm(order: EventDefinitionOrder) {
    const direction = order.descending ? sql`desc nulls last` : sql`asc nulls first`;
    if (order.field === 'name') return sql`${byteOrdered(this.dialect, 'event_definitions.name')} ${direction}`;
    const column = sql.ref(`event_definitions.${order.field}`);
    // Timestamps are ISO-8601 UTC text: the first ten characters are the UTC day.
    return order.byDay ? sql`substr(${column}, 1, 10) ${direction}` : sql`${column} ${direction}`;
  }

  private withUsers(query: SelectQueryBuilder<CatalogSchema, 'event_definitions', object>) {
    return query
      .leftJoin('users as owner', 'owner.id', 'event_definitions.owner_id')
      .leftJoin('users as verifier', 'verifier.id', 'event_definitions.verified_by_id')
      .select([
        'event_definitions.id',
        'event_definitions.team_id',
        'event_definitions.name',
        'event_definitions.created_at',
        'event_definitions.last_seen_at',
        'event_definitions.updated_at',
        'event_definitions.description',
        'event_definitions.tags',
        'event_definitions.verified',
        'event_definitions.verified_at',
        'event_definitions.hidden',
        'event_definitions.owner_id',
        'owner.uuid as owner_uuid',
        'owner.first_name as owner_first_name',
        'owner.email as owner_email',
        'event_definitions.verified_by_id',
        'verifier.uuid as verifier_uuid',
        'verifier.first_name as verifier_first_name',
        'verifier.email as verifier_email',
      ]);
  }
}
