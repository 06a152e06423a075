import { ValidationError } from '../errors.js';
import type { PropertyDefinitionFilter } from './property-definition.js';
import { GROUP_TYPES_LIMIT, NO_GROUP_TYPE, PropertyDefinitionKind } from './property-definition-type.js';
import { commaListParam, flagParam, stringParam, type RawQuery } from '../util/request-params.js';
import { invalidChoice, jsonNameListParam, searchTerms } from './definition-query-params.js';

const KINDS = new Map<string, PropertyDefinitionKind>([
  ['event', PropertyDefinitionKind.Event],
  ['person', PropertyDefinitionKind.Person],
  ['group', PropertyDefinitionKind.Group],
  ['session', PropertyDefinitionKind.Session],
]);

function readGroupTypeIndex(query: RawQuery, kind: PropertyDefinitionKind): number {
  const text = stringParam(query, 'group_type_index');
  if (text === undefined || text === '') {
    if (kind === PropertyDefinitionKind.Group) {
      throw new ValidationError('group_type_index', '`group_type_index` must be set for `group` type');
    }
    return NO_GROUP_TYPE;
  }
  if (!/^-?\d+$/.test(text)) throw new ValidationError('group_type_index', 'A valid integer is required.', 'invalid');
  if (kind !== PropertyDefinitionKind.Group) {
    throw new ValidationError('group_type_index', '`group_type_index` can only set for `group` type');
  }
  const index = Number(text);
  if (index < 0 || index >= GROUP_TYPES_LIMIT) {
    throw new ValidationError('group_type_index', 'Invalid value for `group_type_index`');
  }
  return index;
}

/**
 * Reads the list filters of `GET property_definitions`; bad values are 400s naming the parameter.
 * `exclude_core_properties` only means something for event properties and is ignored otherwise.
 */
export function readPropertyDefinitionFilter(query: RawQuery): PropertyDefinitionFilter {
  const kindParam = stringParam(query, 'type') ?? 'event';
  const kind = KINDS.get(kindParam);
  if (kind === undefined) throw invalidChoice('type', kindParam);
  const groupTypeIndex = readGroupTypeIndex(query, kind);
  const eventNames = jsonNameListParam(query, 'event_names');
  if (eventNames.length > 0 && kind !== PropertyDefinitionKind.Event) {
    throw new ValidationError('event_names', '`event_names` can only be set for `event` type');
  }
  return {
    kind,
    groupTypeIndex,
    searchTerms: searchTerms(query),
    names: commaListParam(query, 'properties'),
    excludedNames: jsonNameListParam(query, 'excluded_properties'),
    onlyNumerical: flagParam(query, 'is_numerical') === true,
    featureFlags: flagParam(query, 'is_feature_flag'),
    eventNames,
    onlySeenOnEventNames: flagParam(query, 'filter_by_event_names') === true,
    excludeCoreProperties: flagParam(query, 'exclude_core_properties') === true && kind === PropertyDefinitionKind.Event,
    excludeHidden: flagParam(query, 'exclude_hidden') === true,
  };
}
