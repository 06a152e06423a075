import { NotFound } from '../errors.js';
import type { Project } from '../projects/project.js';
import type { GroupRepository } from './group-repository.js';
import type { Group, GroupCursor, GroupListFilter, GroupType } from './group.js';

export interface GroupPage {
  groups: Group[];
  /** Where the next page starts; null on the last page. */
  next: GroupCursor | null;
}

/** The groups of a project and its group types, read from the catalog capture keeps. */
export class GroupService {
  constructor(private readonly groups: GroupRepository) {}

  async list(project: Project, filter: GroupListFilter): Promise<GroupPage> {
    const found = await this.groups.list(project.id, { ...filter, limit: filter.limit + 1 });
    const page = found.slice(0, filter.limit);
    const last = page[page.length - 1];
    return {
      groups: page,
      next: found.length > filter.limit && last ? { createdAt: last.createdAt, groupKey: last.groupKey } : null,
    };
  }

  async find(project: Project, groupTypeIndex: number, groupKey: string): Promise<Group> {
    const group = await this.groups.find(project.id, groupTypeIndex, groupKey);
    if (!group) throw new NotFound();
    return group;
  }

  types(project: Project): Promise<GroupType[]> {
    return this.groups.types(project.id);
  }
}
