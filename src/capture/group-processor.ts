import type { Group } from '../groups/group.js';
import type { GroupRepository } from '../groups/group-repository.js';
import { MAX_PERSON_PROPERTIES_LENGTH } from '../persons/person.js';
import type { CatalogTransaction } from '../storage/catalog/catalog.js';
import type { OutboxEntry } from '../storage/warehouse/outbox.js';
import { isoToMicros, isoWithMicros } from '../util/iso-time.js';
import { mergeProperties } from '../util/merge-properties.js';
import type { GroupTypeRegistry } from './group-type-registry.js';
import { ingestionWarning, type IngestionWarning } from './ingestion-warning.js';
import type { NormalizedEvent } from './normalize-event.js';

export type GroupColumns = [string, string, string, string, string];

/** What group processing did to an event. */
export interface GroupOutcome {
  /** The event's `$group_0..4` column values. */
  columns: GroupColumns;
  /**
   * The `$group_N` properties it added, in the order added, or null when it overwrote one the
   * event already had.
   */
  addedProperties: [string, string][] | null;
}

function keyText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * Longest group type and group key kept, in UTF-16 units: PostHog's columns hold 400
 * characters, and a longer key could not be indexed by a PostgreSQL catalog (a B-tree entry
 * holds about 2.7 KB). A group named by a longer one is left out of the event.
 */
const MAX_GROUP_NAME_LENGTH = 400;

/** Longest properties text a group may have, as for persons (see MAX_PERSON_PROPERTIES_LENGTH). */
const MAX_GROUP_PROPERTIES_LENGTH = MAX_PERSON_PROPERTIES_LENGTH;

function fitsGroupColumn(text: string): boolean {
  return text.length <= MAX_GROUP_NAME_LENGTH;
}

/**
 * Groups for a batch of events, as PostHog's group processing does it: `$groups` becomes
 * `$group_N` properties and columns, and `$groupidentify` upserts the group with its
 * `$group_set`. Groups are read when first seen and changed in memory; `write` stores them in
 * the caller's transaction.
 */
export class GroupProcessor {
  private readonly groups = new Map<string, Group>();
  private readonly changed = new Set<Group>();

  constructor(
    /** Reads the catalog; writes go through the repository of the caller's transaction. */
    private readonly repository: GroupRepository,
    private readonly teamId: number,
    private readonly groupTypes: GroupTypeRegistry,
    /** Takes the warnings about updates refused. */
    private readonly warn: (warning: IngestionWarning) => void,
  ) {}

  async process(event: NormalizedEvent): Promise<GroupOutcome> {
    const columns: GroupColumns = ['', '', '', '', ''];
    if (!event.processPerson) return { columns, addedProperties: [] };
    let addedProperties: [string, string][] | null = [];
    const groups = event.properties.$groups;
    if (typeof groups === 'object' && groups !== null && !Array.isArray(groups)) {
      for (const [groupType, groupKey] of Object.entries(groups)) {
        if (groupKey === null || groupKey === undefined || !fitsGroupColumn(groupType)) continue;
        const key = keyText(groupKey);
        if (!fitsGroupColumn(key)) continue;
        const index = this.groupTypes.cachedIndexOf(this.teamId, groupType) ?? (await this.groupTypes.indexOf(this.repository, this.teamId, groupType, true));
        if (index === null) continue;
        columns[index] = key;
        const property = `$group_${index}`;
        if (Object.hasOwn(event.properties, property)) addedProperties = null;
        else addedProperties?.push([property, columns[index]]);
        event.properties[property] = columns[index];
      }
    }
    if (event.event === '$groupidentify') await this.identifyGroup(event);
    return { columns, addedProperties };
  }

  private async identifyGroup(event: NormalizedEvent): Promise<void> {
    const { $group_type: groupType, $group_key: rawKey, $group_set: groupSet } = event.properties;
    if (typeof groupType !== 'string' || rawKey === undefined || rawKey === null || !fitsGroupColumn(groupType)) return;
    const groupKey = keyText(rawKey);
    if (!fitsGroupColumn(groupKey)) return;
    const set = typeof groupSet === 'object' && groupSet !== null && !Array.isArray(groupSet) ? (groupSet as Record<string, unknown>) : null;
    const index = await this.groupTypes.indexOf(this.repository, this.teamId, groupType, set !== null);
    if (index === null) return;
    const group = await this.groupFor(index, groupKey, event);
    const properties = mergeProperties(group.properties, set ?? {});
    if (JSON.stringify(properties).length > MAX_GROUP_PROPERTIES_LENGTH) {
      this.warn(
        ingestionWarning('group_properties_size_violation', {
          groupType,
          groupKey,
          eventUuid: event.uuid,
          message: 'Group properties exceeds size limit and was rejected',
        }),
      );
      return;
    }
    group.properties = properties;
    group.version += 1;
    this.changed.add(group);
  }

  /** The group as the batch has it: as stored when first seen, or new (version -1 until its first change). */
  private async groupFor(index: number, groupKey: string, event: NormalizedEvent): Promise<Group> {
    const key = `${index}:${groupKey}`;
    let group = this.groups.get(key);
    if (!group) {
      group = (await this.repository.find(this.teamId, index, groupKey)) ?? {
        groupTypeIndex: index,
        groupKey,
        properties: {},
        createdAt: isoWithMicros(event.time),
        version: -1,
      };
      this.groups.set(key, group);
    }
    return group;
  }

  /** Stores the groups identified in the batch, in the caller's transaction, and returns their replica changes. */
  async write(trx: CatalogTransaction): Promise<OutboxEntry[]> {
    const repository = this.repository.withTransaction(trx);
    const outbox: OutboxEntry[] = [];
    for (const group of this.changed) {
      const properties = JSON.stringify(group.properties);
      await repository.save(this.teamId, group, properties);
      outbox.push({
        target: 'groups',
        row: {
          team_id: this.teamId,
          group_type_index: group.groupTypeIndex,
          group_key: group.groupKey,
          group_properties: properties,
          created_at: isoToMicros(group.createdAt),
        },
      });
    }
    return outbox;
  }
}
