import { v7 as uuidv7 } from 'uuid';
import { sql, type Expression, type ExpressionBuilder, type Selectable, type SqlBool, type Updateable } from 'kysely';
import type { CatalogDb, CatalogTransaction } from '../storage/catalog/catalog.js';
import type { CatalogDialect } from '../storage/catalog/dialect.js';
import type { CatalogSchema, PropertyDefinitionTable } from '../storage/catalog/schema.js';
import { chunks } from '../util/chunks.js';
import { parseJsonColumn } from '../util/json.js';
import { CORE_EVENT_PROPERTIES_WITHOUT_PREFIX, CORE_PROPERTY_PREFIX } from './core-event-properties.js';
import { byteOrdered, containsEveryTerm } from './name-sql.js';
import type { PropertyDefinition, PropertyDefinitionFilter } from './property-definition.js';
import { GROUP_TYPES_LIMIT, NO_GROUP_TYPE, PropertyDefinitionKind } from './property-definition-type.js';
import type { PropertyType } from './property-type.js';

/** Keys ingestion stores that mean nothing to a user filtering events (PostHog hides them too). */
const HIDDEN_EVENT_PROPERTIES = [
  'distinct_id',
  '$set',
  '$set_once',
  '$groups',
  '$group_type',
  '$group_key',
  '$group_set',
  ...Array.from({ length: GROUP_TYPES_LIMIT }, (_, index) => `$group_${index}`),
];

/** Numeric, but never a measure worth aggregating. */
const NON_MEASURE_PROPERTIES = ['distinct_id', 'timestamp'];

const FEATURE_FLAG_PREFIX = '$feature/';

type Row = Selectable<PropertyDefinitionTable> & { is_seen_on_filtered_events?: unknown };

function toPropertyDefinition(row: Row, withSeen: boolean): PropertyDefinition {
  const groupTypeIndex = Number(row.group_type_index);
  return {
    id: row.id,
    teamId: Number(row.team_id),
    name: row.name,
    kind: Number(row.type) as PropertyDefinitionKind,
    groupTypeIndex: groupTypeIndex === NO_GROUP_TYPE ? null : groupTypeIndex,
    propertyType: row.property_type as PropertyType | null,
    isNumerical: Number(row.is_numerical) === 1,
    tags: parseJsonColumn<string[]>(row.tags, []),
    description: row.description,
    updatedAt: row.updated_at,
    hidden: Number(row.hidden) === 1,
    verified: Number(row.verified) === 1,
    // SQLite answers EXISTS with 0/1, PostgreSQL with a boolean.
    isSeenOnFilteredEvents: withSeen ? Boolean(Number(row.is_seen_on_filtered_events)) : null,
  };
}

export interface PropertyDefinitionChanges {
  propertyType?: PropertyType | null;
  description?: string | null;
  tags?: string[];
  hidden?: boolean;
  verified?: boolean;
}

/** A property as ingestion finds it: its type is null until a value gives it one. */
export interface SeenProperty {
  name: string;
  kind: PropertyDefinitionKind;
  groupTypeIndex: number;
  propertyType: PropertyType | null;
}

/** A property seen on an event (PostHog's `event_properties`). */
export interface EventPropertyLink {
  event: string;
  property: string;
}

/** Rows per insert statement: at most nine parameters each, well under every bound-parameter limit. */
const ROWS_PER_STATEMENT = 500;

export class PropertyDefinitionRepository {
  constructor(
    private readonly db: CatalogDb,
    private readonly dialect: CatalogDialect,
  ) {}

  withTransaction(trx: CatalogTransaction): PropertyDefinitionRepository {
    return new PropertyDefinitionRepository(trx, this.dialect);
  }

  /**
   * Creates the definitions of properties seen at `seenAt` (ISO). A stored definition keeps its
   * type; one stored untyped takes the type given. Rows are written in the order given.
   */
  async recordSeen(teamId: number, properties: readonly SeenProperty[], seenAt: string): Promise<void> {
    for (const chunk of chunks(properties, ROWS_PER_STATEMENT)) {
      await this.db
        .insertInto('property_definitions')
        .values(
          chunk.map((property) => ({
            id: uuidv7(),
            team_id: teamId,
            name: property.name,
            type: property.kind,
            group_type_index: property.groupTypeIndex,
            property_type: property.propertyType,
            is_numerical: property.propertyType === 'Numeric' ? 1 : 0,
            tags: '[]',
            created_at: seenAt,
          })),
        )
        .onConflict((conflict) =>
          conflict
            .columns(['team_id', 'type', 'group_type_index', 'name'])
            .doUpdateSet({
              property_type: (eb) => eb.ref('excluded.property_type'),
              is_numerical: (eb) => eb.ref('excluded.is_numerical'),
            })
            .where((eb) => eb.and([eb('property_definitions.property_type', 'is', null), eb('excluded.property_type', 'is not', null)])),
        )
        .execute();
    }
  }

  /** Links properties to the events they were seen on; links already stored are kept. Rows are written in the order given. */
  async linkToEvents(teamId: number, links: readonly EventPropertyLink[]): Promise<void> {
    for (const chunk of chunks(links, ROWS_PER_STATEMENT)) {
      await this.db
        .insertInto('event_properties')
        .values(chunk.map((link) => ({ team_id: teamId, event: link.event, property: link.property })))
        .onConflict((conflict) => conflict.doNothing())
        .execute();
    }
  }

  async list(
    teamId: number,
    filter: PropertyDefinitionFilter,
    page: { limit: number; offset: number },
  ): Promise<{ total: number; definitions: PropertyDefinition[] }> {
    const matching = this.db
      .selectFrom('property_definitions')
      .where('property_definitions.team_id', '=', teamId)
      .where((eb) => this.matches(eb, filter));
    const total = await matching.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();

    const withSeen = filter.eventNames.length > 0;
    let query = matching.selectAll('property_definitions');
    if (withSeen) {
      query = query.select((eb) => this.seenOn(eb, filter.eventNames).as('is_seen_on_filtered_events')).orderBy(sql`is_seen_on_filtered_events desc`);
    }
    const rows = await query
      .orderBy(sql`${byteOrdered(this.dialect, 'property_definitions.name')} asc`)
      .limit(page.limit)
      .offset(page.offset)
      .execute();
    return { total: Number(total.n), definitions: rows.map((row) => toPropertyDefinition(row, withSeen)) };
  }

  async find(teamId: number, id: string): Promise<PropertyDefinition | undefined> {
    const row = await this.db.selectFrom('property_definitions').selectAll().where('team_id', '=', teamId).where('id', '=', id).executeTakeFirst();
    return row && toPropertyDefinition(row, false);
  }

  async update(teamId: number, id: string, changes: PropertyDefinitionChanges, now: string): Promise<void> {
    const values: Updateable<PropertyDefinitionTable> = { updated_at: now };
    if (changes.propertyType !== undefined) {
      values.property_type = changes.propertyType;
      values.is_numerical = changes.propertyType === 'Numeric' ? 1 : 0;
    }
    if (changes.description !== undefined) values.description = changes.description;
    if (changes.tags !== undefined) values.tags = JSON.stringify(changes.tags);
    if (changes.hidden !== undefined) values.hidden = changes.hidden ? 1 : 0;
    if (changes.verified !== undefined) values.verified = changes.verified ? 1 : 0;
    await this.db.updateTable('property_definitions').set(values).where('team_id', '=', teamId).where('id', '=', id).execute();
  }

  private matches(eb: ExpressionBuilder<CatalogSchema, 'property_definitions'>, filter: PropertyDefinitionFilter) {
    const name = 'property_definitions.name' as const;
    const conditions: Expression<SqlBool>[] = [
      eb('property_definitions.type', '=', filter.kind),
      eb('property_definitions.group_type_index', '=', filter.groupTypeIndex),
    ];
    const excluded = [...filter.excludedNames, ...(filter.kind === PropertyDefinitionKind.Event ? HIDDEN_EVENT_PROPERTIES : [])];
    if (excluded.length > 0) conditions.push(eb(name, 'not in', excluded));
    if (filter.names.length > 0) conditions.push(eb(name, 'in', filter.names));
    if (filter.onlyNumerical) {
      conditions.push(eb('property_definitions.is_numerical', '=', 1), eb(name, 'not in', NON_MEASURE_PROPERTIES));
    }
    if (filter.featureFlags !== undefined) {
      const isFlag = sql<SqlBool>`substr(${sql.ref(name)}, 1, ${FEATURE_FLAG_PREFIX.length}) = ${FEATURE_FLAG_PREFIX}`;
      conditions.push(filter.featureFlags ? isFlag : eb.not(isFlag));
    }
    if (filter.excludeCoreProperties) {
      const prefixed = sql<SqlBool>`substr(${sql.ref(name)}, 1, ${CORE_PROPERTY_PREFIX.length}) = ${CORE_PROPERTY_PREFIX}`;
      conditions.push(eb.not(prefixed), eb(name, 'not in', CORE_EVENT_PROPERTIES_WITHOUT_PREFIX));
    }
    if (filter.excludeHidden) conditions.push(eb('property_definitions.hidden', '=', 0));
    if (filter.searchTerms.length > 0) conditions.push(containsEveryTerm(name, filter.searchTerms));
    if (filter.onlySeenOnEventNames) conditions.push(this.seenOn(eb, filter.eventNames));
    return eb.and(conditions);
  }

  /** Linked to one of the events by ingestion (to any event when no names are given). */
  private seenOn(eb: ExpressionBuilder<CatalogSchema, 'property_definitions'>, eventNames: string[]) {
    let links = eb
      .selectFrom('event_properties')
      .select(sql`1`.as('one'))
      .whereRef('event_properties.team_id', '=', 'property_definitions.team_id')
      .whereRef('event_properties.property', '=', 'property_definitions.name');
    if (eventNames.length > 0) links = links.where('event_properties.event', 'in', eventNames);
    return eb.exists(links);
  }
}
