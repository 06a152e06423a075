import type { CatalogDb } from '../../storage/catalog/catalog.js';
import { parseJsonColumn } from '../../util/json.js';

/** A group as an actor of an analysis aggregated by groups (PostHog's serialized group actor). */
export interface GroupActor {
  type: 'group';
  id: string;
  group_key: string;
  group_type_index: number;
  created_at: string;
  properties: Record<string, unknown>;
  matched_recordings: [];
  value_at_data_point: null;
}

/** Catalog SQL for the groups a warehouse query found, by key. */
export class GroupActorRepository {
  constructor(private readonly db: CatalogDb) {}

  async byKeys(teamId: number, groupTypeIndex: number, keys: readonly string[]): Promise<Map<string, GroupActor>> {
    if (keys.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('groups')
      .select(['group_key', 'properties', 'created_at'])
      .where('team_id', '=', teamId)
      .where('group_type_index', '=', groupTypeIndex)
      .where('group_key', 'in', [...keys])
      .execute();
    return new Map(
      rows.map((row): [string, GroupActor] => [
        row.group_key,
        {
          type: 'group',
          id: row.group_key,
          group_key: row.group_key,
          group_type_index: groupTypeIndex,
          created_at: row.created_at,
          properties: parseJsonColumn<Record<string, unknown>>(row.properties, {}),
          matched_recordings: [],
          value_at_data_point: null,
        },
      ]),
    );
  }
}
