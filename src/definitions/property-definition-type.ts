/** PostHog's `type` column of property definitions. */
export const PropertyDefinitionKind = {
  Event: 1,
  Person: 2,
  Group: 3,
  Session: 4,
} as const;

export type PropertyDefinitionKind = (typeof PropertyDefinitionKind)[keyof typeof PropertyDefinitionKind];

/** Stored instead of NULL for properties that belong to no group type, so uniqueness holds. */
export const NO_GROUP_TYPE = -1;

/** PostHog stores at most five group types per project (indexes 0–4). */
export const GROUP_TYPES_LIMIT = 5;
