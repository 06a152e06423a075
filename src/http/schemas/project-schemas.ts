import { Type } from 'typebox';
import { AnyObject, Nullable } from './common-schemas.js';
import { pageEnvelope, pageQueryFields } from './pagination-schemas.js';

export const ProjectParams = Type.Object({ project_id: Type.String({ description: 'The project id, or @current' }) });

export const ProjectListQuery = Type.Object(pageQueryFields(100, 1000));

const ProjectBasicFields = {
  id: Type.Integer(),
  uuid: Type.String(),
  organization: Type.String({ description: "The organization's id" }),
  project_id: Type.Integer({ description: 'The same as id' }),
  api_token: Type.String({ description: 'The capture token, phc_…' }),
  name: Type.String(),
  completed_snippet_onboarding: Type.Boolean({ description: 'Whether an event was ever captured' }),
  has_completed_onboarding_for: Nullable(AnyObject),
  ingested_event: Type.Boolean(),
  is_demo: Type.Boolean(),
  timezone: Type.String({ description: 'IANA time zone the project reports in' }),
  access_control: Type.Boolean(),
};

/** PostHog's ProjectBackwardCompatBasicSerializer. */
export const ProjectBasic = Type.Object(ProjectBasicFields, { additionalProperties: true });

export const ProjectList = pageEnvelope(ProjectBasic);

/** A test-account filter is a property filter as stored; only its key is checked on the way in. */
const TestAccountFilter = Type.Object(
  {
    key: Type.String(),
    value: Type.Optional(Type.Unknown()),
    operator: Type.Optional(Type.Unknown({ description: 'exact, not_icontains, not_regex, …' })),
    type: Type.Optional(Type.Unknown({ description: 'event, person, …' })),
  },
  { additionalProperties: true },
);

/** The project with its settings, as retrieve and PATCH answer it. */
export const ProjectRecord = Type.Object(
  {
    ...ProjectBasicFields,
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
    anonymize_ips: Type.Boolean(),
    app_urls: Type.Array(Type.String()),
    slack_incoming_webhook: Nullable(Type.String()),
    data_attributes: Type.Array(Type.String()),
    person_display_name_properties: Nullable(Type.Array(Type.String(), { description: 'null: the default list (email, name, username, …)' })),
    test_account_filters: Type.Array(TestAccountFilter, { description: 'ANDed into queries that filter test accounts' }),
    test_account_filters_default_checked: Type.Boolean(),
    path_cleaning_filters: Type.Array(Type.Unknown()),
    week_start_day: Nullable(Type.Integer({ description: '0: weeks start on Sunday, 1: on Monday; null: Sunday' })),
    primary_dashboard: Nullable(Type.Integer()),
    effective_membership_level: Type.Integer(),
    has_group_types: Type.Boolean(),
  },
  { additionalProperties: true },
);

/**
 * The settings a PATCH may change. Values are judged by the project service, which answers
 * PostHog's messages, so the schema names the fields without constraining their values.
 */
export const ProjectPatchBody = Type.Object(
  {
    name: Type.Optional(Type.Unknown({ description: 'string: not blank, at most 200 characters' })),
    timezone: Type.Optional(Type.Unknown({ description: 'string: an IANA time zone (any case)' })),
    week_start_day: Type.Optional(Type.Unknown({ description: '0 (Sunday), 1 (Monday) or null' })),
    test_account_filters: Type.Optional(Type.Unknown({ description: 'list of property filters, each with a non-empty key' })),
    person_display_name_properties: Type.Optional(Type.Unknown({ description: 'list of property names, or null for the default' })),
  },
  { additionalProperties: true },
);
