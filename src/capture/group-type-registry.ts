import type { GroupRepository } from '../groups/group-repository.js';
import type { GroupType } from '../groups/group.js';

export const MAX_GROUP_TYPES = 5;

/**
 * Per-project group-type indexes (0–4), assigned on first sight. Cached: the mapping of a
 * project only ever grows. A new assignment is held until its batch is written (`writeAssigned`,
 * in the batch's transaction); after a batch fails, `forgetAll` must be called, so the cache never
 * holds an index the catalog does not.
 */
export class GroupTypeRegistry {
  private readonly cache = new Map<number, Map<string, number>>();
  private readonly unwritten: (GroupType & { teamId: number })[] = [];

  private async load(groups: GroupRepository, teamId: number): Promise<Map<string, number>> {
    let types = this.cache.get(teamId);
    if (!types) {
      types = new Map((await groups.types(teamId)).map((type) => [type.groupType, type.groupTypeIndex]));
      this.cache.set(teamId, types);
    }
    return types;
  }

  /** The index of a known group type of a project already loaded, without a catalog read. */
  cachedIndexOf(teamId: number, groupType: string): number | undefined {
    return this.cache.get(teamId)?.get(groupType);
  }

  /** The index of a group type; with `create`, assigns the next free one (null when all five are taken). */
  async indexOf(groups: GroupRepository, teamId: number, groupType: string, create: boolean): Promise<number | null> {
    const types = await this.load(groups, teamId);
    const known = types.get(groupType);
    if (known !== undefined || !create) return known ?? null;
    if (types.size >= MAX_GROUP_TYPES) return null;
    const index = types.size;
    types.set(groupType, index);
    this.unwritten.push({ teamId, groupType, groupTypeIndex: index });
    return index;
  }

  /** Writes the assignments made since the last write, through the repository of the caller's transaction. */
  async writeAssigned(groups: GroupRepository): Promise<void> {
    await groups.addTypes(this.unwritten.splice(0));
  }

  /** Drops what is known of every project, written or not: the catalog is read again. */
  forgetAll(): void {
    this.cache.clear();
    this.unwritten.length = 0;
  }
}
