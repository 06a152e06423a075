import { Type, type TSchema } from 'typebox';
import { AnyObject, Nullable } from './common-schemas.js';
import { pageEnvelope, pageQueryFields } from './pagination-schemas.js';

/**
 * The schemas of `/api/projects/:project_id/persons`. Query parameters are declared as text (a
 * list when repeated) and body fields as any JSON: the persons parsers judge them, so their 400s
 * keep PostHog's wording and name the field. Records are open, so a field added to a serializer
 * is never dropped; their fields are listed in the serializer's order, which the answer keeps.
 */

const JSON_TEXT = 'JSON-encoded';

export const ProjectParams = Type.Object({ project_id: Type.String() });
export const PersonParams = Type.Object({
  project_id: Type.String(),
  id: Type.String({ description: 'The integer id or the UUID of the person' }),
});

/** A query parameter: text, or a list when it is repeated (the last value counts unless said otherwise). */
const param = (description: string) => Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())], { description }));

const FORMAT = { format: param('csv for CSV (also with Accept: text/csv), json by default; another value is a 404') };
const NUMBERED_PAGE = {
  page: param('Page number from 1, default 1'),
  limit: param('Page size, default 10, at most 1000'),
};

const anyJson = (description: string) => Type.Optional(Type.Unknown({ description }));

/** A JSON body: an object (fields not listed are ignored), or none at all. */
function optionalBody<T extends Record<string, TSchema>>(description: string, fields: T) {
  return Type.Union([Type.Object(fields, { additionalProperties: true }), Type.Null()], { description });
}

export const FormatQuery = Type.Object(FORMAT);

export const PersonListQuery = Type.Object({
  ...pageQueryFields(100, 1000),
  distinct_id: param('Only the person with this distinct id'),
  email: param('Only persons whose email property is exactly this'),
  search: param('Email containing this (case-insensitive), an exact distinct id, or the person UUID'),
  properties: param(`Person and cohort property filters, a list or an AND/OR group, ${JSON_TEXT}`),
  ...FORMAT,
});

export const DeletionStatusQuery = Type.Object({
  ...pageQueryFields(100, 1000),
  status: param('pending, completed or all (default)'),
  person_uuid: param('Only the tasks of this person UUID'),
  ...FORMAT,
});

export const ActivityQuery = Type.Object({ ...NUMBERED_PAGE, ...FORMAT });

export const ValuesQuery = Type.Object({
  key: param('The person property; without it the answer is empty'),
  value: param('Only values containing this (case-insensitive)'),
  ...FORMAT,
});

export const PersonCohortsQuery = Type.Object({ person_id: param('The integer id or the UUID of the person (required)'), ...FORMAT });

export const DeleteQuery = Type.Object({
  delete_events: param("A boolean (true, 1, yes…): true also queues the deletion of the person's events"),
  ...FORMAT,
});

export const PropertyUpdateQuery = Type.Object({
  key: param('The property key, when the body has none'),
  value: param('The value (as text), when the body has none'),
  ...FORMAT,
});

export const PropertyUnsetQuery = Type.Object({ $unset: param('The property key to remove, when the body has none'), ...FORMAT });

export const TimelineQuery = Type.Object(
  {
    events: param(`Event series, [{id, order, properties}], ${JSON_TEXT}`),
    actions: param(`Action series, [{id, order, properties}], ${JSON_TEXT}`),
    properties: param(`Property filters, a list or an AND/OR group, ${JSON_TEXT}`),
    date_from: param('Absolute or relative (-7d) date, or all'),
    date_to: param('Absolute or relative date; equal to date_from, one interval from it'),
    interval: param('hour, day (default), week or month'),
    breakdown: param('A breakdown property; with breakdown_type person, a crucial key'),
    breakdown_type: param('event, person, group, session or cohort'),
    display: param('The insight display'),
    ...FORMAT,
  },
  { additionalProperties: true },
);

export const PropertiesPatchBody = optionalBody('{"properties": {...}}', {
  properties: anyJson('An object: the properties to set; the others are kept. Other fields are ignored'),
});

export const PropertyUpdateBody = optionalBody('{"key": ..., "value": ...}; none when both are in the query string', {
  key: anyJson('The property key (text, not blank)'),
  value: anyJson('Any JSON value, null included'),
});

export const PropertyUnsetBody = optionalBody('{"$unset": ...}; none when it is in the query string', {
  $unset: anyJson('The property key to remove (text, not blank)'),
});

export const SplitBody = optionalBody('Optional: without one, the first distinct id stays', {
  main_distinct_id: anyJson('The distinct id that stays on the person (default its first); every other one becomes a person of its own'),
  distinct_ids_to_split: anyJson('Instead: a non-empty list of distinct ids, each moved to a person of its own'),
});

export const Person = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String({ description: 'From the display-name properties, else a distinct id' }),
    distinct_ids: Type.Array(Type.String()),
    properties: AnyObject,
    created_at: Type.String({ format: 'date-time' }),
    uuid: Type.String({ format: 'uuid' }),
    is_identified: Type.Boolean(),
  },
  { additionalProperties: true },
);

export const PersonList = pageEnvelope(Person);

const DeletionStatus = Type.Object(
  {
    person_uuid: Type.String({ format: 'uuid' }),
    created_at: Type.String({ format: 'date-time' }),
    status: Type.String({ description: 'pending or completed' }),
    delete_verified_at: Nullable(Type.String({ format: 'date-time' })),
  },
  { additionalProperties: true },
);

export const DeletionStatusList = pageEnvelope(DeletionStatus);

const ActivityEntry = Type.Object(
  {
    id: Type.String(),
    user: Type.Object({ first_name: Type.String(), email: Nullable(Type.String()) }, { additionalProperties: true }),
    activity: Type.String({ description: 'updated, deleted, delete_property or split_person' }),
    scope: Type.String(),
    item_id: Type.String({ description: 'The integer id of the person, as text' }),
    detail: Type.Object(
      {
        changes: Type.Optional(Nullable(Type.Array(AnyObject, { description: '{type, action, field, before, after}' }))),
        trigger: Type.Optional(Type.Unknown()),
        type: Type.Optional(Type.Unknown()),
        name: Type.Optional(Nullable(Type.String({ description: 'The person UUID' }))),
        short_id: Type.Optional(Type.Unknown()),
      },
      { additionalProperties: true },
    ),
    created_at: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: true },
);

export const ActivityPage = Type.Object({
  results: Type.Array(ActivityEntry),
  next: Nullable(Type.String()),
  previous: Nullable(Type.String()),
  total_count: Type.Integer(),
});

export const PropertyValues = Type.Array(Type.Object({ name: Type.String({ description: 'Numbers, booleans and JSON as text' }), count: Type.Integer() }), {
  description: 'The 20 commonest values, most persons first',
});

export const PropertiesTimeline = Type.Object({
  points: Type.Array(
    Type.Object({
      timestamp: Type.String({ format: 'date-time' }),
      properties: AnyObject,
      relevant_event_count: Type.Integer({ description: 'Events from this point to the next' }),
    }),
  ),
  crucial_property_keys: Type.Array(Type.String()),
  effective_date_from: Type.String({ description: 'In the project timezone' }),
  effective_date_to: Type.String({ description: 'In the project timezone' }),
});

export const Deleted = Type.Null({ description: 'Deleted; no body' });
