import type { Group, GroupType } from './group.js';

export function serializeGroup(group: Group) {
  return {
    group_type_index: group.groupTypeIndex,
    group_key: group.groupKey,
    group_properties: group.properties,
    created_at: group.createdAt,
  };
}

/**
 * PostHog's group type record. Tally keeps no display names, dashboards or column choices for
 * group types, nor when a type was first seen, so those fields are null.
 */
export function serializeGroupType(type: GroupType) {
  return {
    group_type: type.groupType,
    group_type_index: type.groupTypeIndex,
    name_singular: null,
    name_plural: null,
    detail_dashboard: null,
    default_columns: null,
    created_at: null,
  };
}
