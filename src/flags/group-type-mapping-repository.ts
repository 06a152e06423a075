import type { CatalogDb } from '../storage/catalog/catalog.js';

/** A project's group types by index, as ingestion assigned them. */
export class GroupTypeMappingRepository {
  constructor(private readonly db: CatalogDb) {}

  async listForProject(teamId: number): Promise<{ index: number; groupType: string }[]> {
    const rows = await this.db
      .selectFrom('group_type_mappings')
      .select(['group_type', 'group_type_index'])
      .where('team_id', '=', teamId)
      .orderBy('group_type_index')
      .execute();
    return rows.map((row) => ({ index: Number(row.group_type_index), groupType: row.group_type }));
  }
}
