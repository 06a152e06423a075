import type { CatalogDb } from '../storage/catalog/catalog.js';

export const MAX_GROUP_TYPES = 5;

interface Assignment {
  teamId: number;
  groupType: string;
  index: number;
}

/**
 * Per-project group-type indexes (0–4), assigned on first sight. Cached: the mapping of a
 * project only ever grows. A new assignment is held until its batch is written (`writeAssigned`,
 * in the batch's transaction); a batch that fails must `forget` the project, so the cache never
 * holds an index the catalog does not.
 */
export class GroupTypeRegistry {
  private readonly cache = new Map<number, Map<string, number>>();
  private readonly unwritten: Assignment[] = [];

  private async load(db: CatalogDb, teamId: number): Promise<Map<string, number>> {
    let types = this.cache.get(teamId);
    if (!types) {
      const rows = await db.selectFrom('group_type_mappings').selectAll().where('team_id', '=', teamId).execute();
      types = new Map(rows.map((row) => [row.group_type, Number(row.group_type_index)]));
      this.cache.set(teamId, types);
    }
    return types;
  }

  /** The index of a known group type of a project already loaded, without a catalog read. */
  cachedIndexOf(teamId: number, groupType: string): number | undefined {
    return this.cache.get(teamId)?.get(groupType);
  }

  /** The index of a group type; with `create`, assigns the next free one (null when all five are taken). */
  async indexOf(db: CatalogDb, teamId: number, groupType: string, create: boolean): Promise<number | null> {
    const types = await this.load(db, teamId);
    const known = types.get(groupType);
    if (known !== undefined || !create) return known ?? null;
    if (types.size >= MAX_GROUP_TYPES) return null;
    const index = types.size;
    types.set(groupType, index);
    this.unwritten.push({ teamId, groupType, index });
    return index;
  }

  /** Writes the assignments made since the last write, in the caller's transaction. */
  async writeAssigned(db: CatalogDb): Promise<void> {
    const assignments = this.unwritten.splice(0);
    if (assignments.length === 0) return;
    await db
      .insertInto('group_type_mappings')
      .values(assignments.map((entry) => ({ team_id: entry.teamId, group_type: entry.groupType, group_type_index: entry.index })))
      .execute();
  }

  /** Drops what is known of every project, written or not: the catalog is read again. */
  forgetAll(): void {
    this.cache.clear();
    this.unwritten.length = 0;
  }
}
