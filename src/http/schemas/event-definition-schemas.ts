import { Type } from 'typebox';
import { Nullable } from './common-schemas.js';
import { pageEnvelope, pageQueryFields } from './pagination-schemas.js';

export const EventDefinitionListParams = Type.Object({ project_id: Type.String() });
export const EventDefinitionParams = Type.Object({ project_id: Type.String(), id: Type.String({ description: "The definition's UUID" }) });

/** A parameter that may be repeated; the last value counts unless the description says otherwise. */
const Repeatable = (description: string) => Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())], { description }));

export const EventDefinitionListQuery = Type.Object({
  ...pageQueryFields(100, 10_000),
  search: Repeatable('Whitespace-separated terms that must all be case-insensitive substrings of the name'),
  event_type: Repeatable(
    'event (default, all), event_custom (names not starting with $) or event_posthog (names starting with $); all and action_event mean event',
  ),
  ordering: Repeatable(
    'name, last_seen_at, last_seen_at::date, created_at or created_at::date, - for descending; repeated or comma-separated, unknown keys ignored. ' +
      'Default: last seen day descending, then name',
  ),
  excluded_properties: Repeatable('A JSON list of event names to leave out'),
  names: Repeatable('Exact names, repeated or comma-separated'),
});

const DefinitionUser = Nullable(
  Type.Object({ id: Type.Integer(), uuid: Type.String(), first_name: Type.String(), last_name: Type.String(), email: Type.String() }),
);

/** PostHog's enterprise event definition record. */
export const EventDefinitionRecord = Type.Object(
  {
    id: Type.String({ description: 'UUID' }),
    name: Type.String(),
    owner: DefinitionUser,
    description: Nullable(Type.String()),
    tags: Type.Array(Type.String()),
    created_at: Nullable(Type.String({ format: 'date-time', description: 'When ingestion first saw the event' })),
    updated_at: Nullable(Type.String({ format: 'date-time' })),
    last_seen_at: Nullable(Type.String({ format: 'date-time', description: 'The latest sighting, to the hour' })),
    verified: Type.Boolean(),
    verified_at: Nullable(Type.String({ format: 'date-time' })),
    verified_by: DefinitionUser,
    hidden: Type.Boolean(),
    is_action: Type.Boolean(),
    volume_30_day: Type.Integer({ description: 'Events of this name in the last 30 days' }),
    query_usage_30_day: Type.Null({ description: 'Not counted by Tally' }),
  },
  { additionalProperties: true },
);

export const EventDefinitionList = pageEnvelope(EventDefinitionRecord);

/**
 * What a PATCH may change. Values are judged by the definition service, which answers PostHog's
 * messages, so the schema names the fields without constraining their values.
 */
export const EventDefinitionPatchBody = Type.Object(
  {
    description: Type.Optional(Type.Unknown({ description: 'string or null' })),
    tags: Type.Optional(Type.Unknown({ description: 'list of strings (replaces the tags)' })),
    verified: Type.Optional(Type.Unknown({ description: 'boolean: true stamps verified_by and verified_at and un-hides, false clears them' })),
    hidden: Type.Optional(Type.Unknown({ description: 'boolean: true un-verifies; true together with verified: true is refused' })),
    owner: Type.Optional(Type.Unknown({ description: 'the id of a user of the organization, or null' })),
  },
  { additionalProperties: true },
);
