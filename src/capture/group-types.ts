import type { CatalogDb } from '../storage/catalog/catalog.js';

export const MAX_GROUP_TYPES = 5;

/**
 * Per-project group-type indexes (0–4), assigned on first sight. Cached: the mapping of a
 * project only ever grows. Callers must `forget(teamId)` when the transaction that created a
 * mapping rolls back.
 */
export class GroupTypeRegistry {
  private readonly cache = new Map<number, Map<string, number>>();

  private async load(db: CatalogDb, teamId: number): Promise<Map<string, number>> {
    let types = this.cache.get(teamId);
    if (!types) {
      const rows = await db.selectFrom('group_type_mappings').selectAll().where('team_id', '=', teamId).execute();
      types = new Map(rows.map((row) => [row.group_type, Number(row.group_type_index)]));
      this.cache.set(teamId, types);
    }
    return types;
  }

  /** The index of a group type; with `create`, assigns the next free one (null when all five are taken). */
  async indexOf(db: CatalogDb, teamId: number, groupType: string, create: boolean): Promise<number | null> {
    const types = await this.load(db, teamId);
    const known = types.get(groupType);
    if (known !== undefined || !create) return known ?? null;
    if (types.size >= MAX_GROUP_TYPES) return null;
    const index = types.size;
    await db.insertInto('group_type_mappings').values({ team_id: teamId, group_type: groupType, group_type_index: index }).execute();
    types.set(groupType, index);
    return index;
  }


  forget(teamId: number): void {
    this.cache.delete(teamId);
  }
}
