import type { CatalogDb } from '../storage/catalog/catalog.js';
import { isoToClickhouse } from '../storage/warehouse/datetime.js';
import type { OutboxEntry } from '../storage/warehouse/outbox.js';
import { isoWithMicros } from '../util/iso-time.js';
import { parseJsonColumn } from '../util/json.js';
import type { GroupTypeRegistry } from './group-types.js';
import type { NormalizedEvent } from './normalize-event.js';

export type GroupColumns = [string, string, string, string, string];

function keyText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * Groups for one event: `$groups` becomes `$group_N` properties and columns, and
 * `$groupidentify` upserts the group with its `$group_set` (ingestion spec A3 "Groups").
 */
export class GroupProcessor {
  readonly outbox: OutboxEntry[] = [];

  constructor(
    private readonly db: CatalogDb,
    private readonly teamId: number,
    private readonly groupTypes: GroupTypeRegistry,
  ) {}

  /** Returns the event's `$group_0..4` column values. */
  async process(event: NormalizedEvent): Promise<GroupColumns> {
    const columns: GroupColumns = ['', '', '', '', ''];
    if (!event.processPerson) return columns;
    const groups = event.properties.$groups;
    if (typeof groups === 'object' && groups !== null && !Array.isArray(groups)) {
      for (const [groupType, groupKey] of Object.entries(groups)) {
        if (groupKey === null || groupKey === undefined) continue;
        const index = await this.groupTypes.indexOf(this.db, this.teamId, groupType, true);
        if (index === null) continue;
        columns[index] = keyText(groupKey);
        event.properties[`$group_${index}`] = columns[index];
      }
    }
    if (event.event === '$groupidentify') await this.identifyGroup(event);
    return columns;
  }

  private async identifyGroup(event: NormalizedEvent): Promise<void> {
    const { $group_type: groupType, $group_key: rawKey, $group_set: groupSet } = event.properties;
    if (typeof groupType !== 'string' || rawKey === undefined || rawKey === null) return;
    const set = typeof groupSet === 'object' && groupSet !== null && !Array.isArray(groupSet) ? groupSet : null;
    const index = await this.groupTypes.indexOf(this.db, this.teamId, groupType, set !== null);
    if (index === null) return;
    const groupKey = keyText(rawKey);
    const existing = await this.db
      .selectFrom('groups')
      .selectAll()
      .where('team_id', '=', this.teamId)
      .where('group_type_index', '=', index)
      .where('group_key', '=', groupKey)
      .executeTakeFirst();
    const properties = { ...parseJsonColumn<Record<string, unknown>>(existing?.properties ?? null, {}), ...(set ?? {}) };
    const createdAt = existing?.created_at ?? isoWithMicros(event.time);
    const version = Number(existing?.version ?? -1) + 1;
    await this.db
      .insertInto('groups')
      .values({
        team_id: this.teamId,
        group_type_index: index,
        group_key: groupKey,
        properties: JSON.stringify(properties),
        created_at: createdAt,
        version,
      })
      .onConflict((conflict) =>
        conflict.columns(['team_id', 'group_type_index', 'group_key']).doUpdateSet({ properties: JSON.stringify(properties), version }),
      )
      .execute();
    this.outbox.push({
      target: 'groups',
      row: {
        team_id: this.teamId,
        group_type_index: index,
        group_key: groupKey,
        group_properties: JSON.stringify(properties),
        created_at: isoToClickhouse(createdAt),
      },
    });
  }
}
