import type { PropertyDefinitionKind } from './property-definition-type.js';
import type { PropertyType } from './property-type.js';

export interface PropertyDefinition {
  id: string;
  teamId: number;
  name: string;
  kind: PropertyDefinitionKind;
  groupTypeIndex: number | null;
  propertyType: PropertyType | null;
  isNumerical: boolean;
  tags: string[];
  description: string | null;
  updatedAt: string | null;
  /** Hidden from pickers (`exclude_hidden`); never at the same time as verified. */
  hidden: boolean;
  verified: boolean;
  /** Whether the property was seen on one of the `event_names` of the request; null without them. */
  isSeenOnFilteredEvents: boolean | null;
}

export interface PropertyDefinitionFilter {
  kind: PropertyDefinitionKind;
  /** -1 unless `kind` is group. */
  groupTypeIndex: number;
  searchTerms: string[];
  /** `properties`: exact names to keep (empty: all). */
  names: string[];
  excludedNames: string[];
  onlyNumerical: boolean;
  /** true: only `$feature/…` names, false: none of them, undefined: both. */
  featureFlags: boolean | undefined;
  eventNames: string[];
  onlySeenOnEventNames: boolean;
  /** Drops `$` names and PostHog's other core event properties (event properties only). */
  excludeCoreProperties?: boolean;
  excludeHidden?: boolean;
}
