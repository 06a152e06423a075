import { sql, type Expression, type ExpressionBuilder, type RawBuilder, type Selectable, type SqlBool } from 'kysely';
import { byteOrdered } from '../definitions/name-sql.js';
import type { CatalogDb, CatalogTransaction } from '../storage/catalog/catalog.js';
import type { CatalogDialect } from '../storage/catalog/dialect.js';
import type { CatalogSchema, GroupTable } from '../storage/catalog/schema.js';
import { parseJsonColumn } from '../util/json.js';
import type { Group, GroupListFilter, GroupType } from './group.js';

function toGroup(row: Selectable<GroupTable>): Group {
  return {
    groupTypeIndex: Number(row.group_type_index),
    groupKey: row.group_key,
    properties: parseJsonColumn<Record<string, unknown>>(row.properties, {}),
    createdAt: row.created_at,
    version: Number(row.version),
  };
}

/** `%term%` for LIKE … ESCAPE '!', lower-cased, with the wildcards of the term matching literally. */
function containsPattern(term: string): string {
  return `%${term.toLowerCase().replace(/[!%_]/g, (character) => `!${character}`)}%`;
}

/** Catalog SQL for groups and group types. */
export class GroupRepository {
  constructor(
    private readonly db: CatalogDb,
    private readonly dialect: CatalogDialect,
  ) {}

  withTransaction(trx: CatalogTransaction): GroupRepository {
    return new GroupRepository(trx, this.dialect);
  }

  /** Groups of one type, newest first then by key (code point order on both catalogs), after the cursor. */
  async list(teamId: number, filter: GroupListFilter): Promise<Group[]> {
    const key = byteOrdered(this.dialect, 'groups.group_key');
    const rows = await this.db
      .selectFrom('groups')
      .selectAll()
      .where('team_id', '=', teamId)
      .where('group_type_index', '=', filter.groupTypeIndex)
      .where((eb) => eb.and(this.conditions(eb, filter, key)))
      .orderBy('created_at', 'desc')
      .orderBy(sql`${key} asc`)
      .limit(filter.limit)
      .execute();
    return rows.map(toGroup);
  }

  async find(teamId: number, groupTypeIndex: number, groupKey: string): Promise<Group | undefined> {
    const row = await this.db
      .selectFrom('groups')
      .selectAll()
      .where('team_id', '=', teamId)
      .where('group_type_index', '=', groupTypeIndex)
      .where('group_key', '=', groupKey)
      .executeTakeFirst();
    return row && toGroup(row);
  }

  /** Stores a group as ingestion changed it: created, or its properties and version replaced. */
  async save(teamId: number, group: Group, propertiesJson = JSON.stringify(group.properties)): Promise<void> {
    await this.db
      .insertInto('groups')
      .values({
        team_id: teamId,
        group_type_index: group.groupTypeIndex,
        group_key: group.groupKey,
        properties: propertiesJson,
        created_at: group.createdAt,
        version: group.version,
      })
      .onConflict((conflict) =>
        conflict.columns(['team_id', 'group_type_index', 'group_key']).doUpdateSet({ properties: propertiesJson, version: group.version }),
      )
      .execute();
  }

  async types(teamId: number): Promise<GroupType[]> {
    const rows = await this.db
      .selectFrom('group_type_mappings')
      .select(['group_type', 'group_type_index'])
      .where('team_id', '=', teamId)
      .orderBy('group_type_index')
      .execute();
    return rows.map((row) => ({ groupType: row.group_type, groupTypeIndex: Number(row.group_type_index) }));
  }

  /** Stores group types newly assigned to an index, of any projects. */
  async addTypes(types: readonly (GroupType & { teamId: number })[]): Promise<void> {
    if (types.length === 0) return;
    await this.db
      .insertInto('group_type_mappings')
      .values(types.map((type) => ({ team_id: type.teamId, group_type: type.groupType, group_type_index: type.groupTypeIndex })))
      .execute();
  }

  private conditions(eb: ExpressionBuilder<CatalogSchema, 'groups'>, filter: GroupListFilter, key: RawBuilder<string>) {
    const conditions: Expression<SqlBool>[] = [];
    if (filter.after) {
      const { createdAt, groupKey } = filter.after;
      conditions.push(eb.or([eb('created_at', '<', createdAt), eb.and([eb('created_at', '=', createdAt), sql<SqlBool>`${key} > ${groupKey}`])]));
    }
    if (filter.groupKey !== null) conditions.push(this.contains(sql`group_key`, filter.groupKey));
    if (filter.search !== null) {
      conditions.push(eb.or([this.contains(sql`group_key`, filter.search), this.contains(this.nameProperty(), filter.search)]));
    }
    return conditions;
  }

  private contains(expression: RawBuilder<unknown>, term: string): RawBuilder<SqlBool> {
    return sql<SqlBool>`lower(${expression}) like ${containsPattern(term)} escape '!'`;
  }

  /** The group's `name` property as text (properties are JSON text on both catalogs). */
  private nameProperty(): RawBuilder<unknown> {
    return this.dialect === 'postgres' ? sql`(properties::json ->> 'name')` : sql`json_extract(properties, '$.name')`;
  }
}
