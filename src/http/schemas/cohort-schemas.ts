import { Type } from 'typebox';
import { Nullable, UserBasic } from './common-schemas.js';
import { pageEnvelope, pageQueryFields } from './pagination-schemas.js';
import { Person } from './person-schemas.js';

export const CohortListParams = Type.Object({ project_id: Type.String() });
export const CohortParams = Type.Object({ project_id: Type.String(), id: Type.String({ description: "The cohort's integer id" }) });

export const CohortListQuery = Type.Object(pageQueryFields(100, 1000));
export const CohortMembersQuery = Type.Object(pageQueryFields(100, 10_000));

/** PostHog's CohortSerializer shape. */
export const CohortRecord = Type.Object(
  {
    id: Type.Integer(),
    name: Nullable(Type.String()),
    description: Type.String(),
    groups: Type.Array(Type.Unknown(), { description: 'The legacy definition as sent, or []' }),
    deleted: Type.Boolean(),
    filters: Type.Object(
      { properties: Type.Object({}, { additionalProperties: true, description: 'The root property group: {type: AND or OR, values: [filters or groups]}' }) },
      { additionalProperties: true },
    ),
    query: Type.Null(),
    is_calculating: Type.Boolean(),
    created_by: UserBasic,
    created_at: Type.String({ format: 'date-time' }),
    last_calculation: Type.String({ format: 'date-time', description: 'Always now: membership is computed by every query' }),
    errors_calculating: Type.Integer(),
    count: Nullable(Type.Integer({ description: 'Members now; null when the definition no longer compiles (a cohort or action it uses was deleted)' })),
    is_static: Type.Boolean(),
    cohort_type: Type.String({ description: 'static, person_property, behavioral or analytical' }),
    experiment_set: Type.Array(Type.Integer()),
  },
  { additionalProperties: true },
);

export const CohortList = pageEnvelope(CohortRecord);

/** The cohorts a person belongs to, as `GET /persons/cohorts/` lists them. */
export const PersonCohorts = Type.Object({ results: Type.Array(CohortRecord) });

export const CohortMembers = pageEnvelope(Person);

/**
 * A create or PATCH body, as JSON or as multipart form fields (where every value is text and
 * `csv` is the uploaded file). Values are judged by the cohort parser and the filter parser,
 * which answer PostHog's messages, so the schema names the fields without constraining their values.
 */
export const CohortBody = Type.Object(
  {
    name: Type.Optional(Type.Unknown({ description: 'string (at most 400 characters) or null' })),
    description: Type.Optional(Type.Unknown({ description: 'string' })),
    is_static: Type.Optional(Type.Unknown({ description: 'boolean (or "true"/"false"): a static cohort has listed members instead of a definition' })),
    filters: Type.Optional(
      Type.Unknown({
        description:
          'object {properties: {type: AND or OR, values: [...]}} (JSON text in a form): person property, cohort and behavioural filters (performed_event, performed_event_multiple, …). Wins over groups',
      }),
    ),
    groups: Type.Optional(
      Type.Unknown({ description: 'list: the legacy definition, ORed groups of {properties} or {action_id or event_id, days, count, count_operator}' }),
    ),
    deleted: Type.Optional(Type.Unknown({ description: 'boolean: true deletes the cohort, as DELETE does' })),
    csv: Type.Optional(Type.Unknown({ description: 'multipart only: a CSV file whose first column holds distinct ids; their persons join the static cohort' })),
  },
  { additionalProperties: true },
);

export const AddPersonsBody = Type.Object(
  { person_ids: Type.Optional(Type.Unknown({ description: 'list of person UUIDs, at most 10,000; UUIDs that are not persons of the project are skipped' })) },
  { additionalProperties: true },
);

export const AddPersonsResult = Type.Object({ success: Type.Boolean() });
