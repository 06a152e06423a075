import { ValidationError } from '../errors.js';
import { isJsonObject as isObject } from '../util/json.js';

/**
 * PostHog's deprecated cohort `groups`: OR-ed groups, each either person/cohort property
 * filters (AND-ed) or "did this event/action in the last `days` days (`count` times)". They
 * become the equivalent `filters` tree, which is what queries compile.
 */

function propertyGroup(properties: unknown): Record<string, unknown> {
  const items = Array.isArray(properties) ? properties : isObject(properties) ? [properties] : [];
  const values = items.filter(isObject).map((item) => {
    if (item.type === 'cohort' || item.type === 'precalculated-cohort' || item.type === 'static-cohort') {
      return { key: 'id', type: 'cohort', value: item.value, negation: item.negation === true };
    }
    return { ...item, type: 'person', operator: item.operator ?? 'exact' };
  });
  return { type: 'AND', values };
}

function eventGroup(group: Record<string, unknown>): Record<string, unknown> {
  const isAction = group.action_id !== undefined && group.action_id !== null;
  const count = Math.max(0, Math.trunc(Number(group.count ?? 0)) || 0);
  const days = Math.trunc(Number(group.days ?? 0)) || 365;
  return {
    type: 'AND',
    values: [
      {
        type: 'behavioral',
        key: isAction ? group.action_id : group.event_id,
        event_type: isAction ? 'actions' : 'events',
        value: count > 0 ? 'performed_event_multiple' : 'performed_event',
        time_value: days,
        time_interval: 'day',
        ...(count > 0 ? { operator: group.count_operator ?? null, operator_value: count } : {}),
      },
    ],
  };
}

export function legacyGroupsToFilters(groups: unknown): { properties: Record<string, unknown> } {
  if (!Array.isArray(groups)) throw new ValidationError('groups', 'Expected a list of items.', 'not_a_list');
  const values = groups.map((group) => {
    if (!isObject(group)) throw new ValidationError('groups', 'Each group must be an object.');
    const hasEvent = (group.action_id ?? group.event_id) !== undefined && (group.action_id ?? group.event_id) !== null;
    return hasEvent ? eventGroup(group) : propertyGroup(group.properties);
  });
  return { properties: { type: 'OR', values } };
}
