import type { Project } from './project.js';

/** The list form, PostHog's ProjectBackwardCompatBasicSerializer. */
export function serializeProjectBasic(project: Project) {
  return {
    id: project.id,
    uuid: project.uuid,
    organization: project.organizationId,
    project_id: project.id,
    api_token: project.apiToken,
    name: project.name,
    completed_snippet_onboarding: project.ingestedEvent,
    has_completed_onboarding_for: null,
    ingested_event: project.ingestedEvent,
    is_demo: false,
    timezone: project.timezone,
    access_control: false,
  };
}

/** The retrieve/update form with the project's settings. */
export function serializeProject(project: Project) {
  return {
    ...serializeProjectBasic(project),
    created_at: project.createdAt,
    updated_at: project.updatedAt,
    anonymize_ips: false,
    app_urls: [],
    slack_incoming_webhook: null,
    data_attributes: ['data-attr'],
    person_display_name_properties: project.personDisplayNameProperties,
    test_account_filters: project.testAccountFilters,
    test_account_filters_default_checked: false,
    path_cleaning_filters: [],
    week_start_day: project.weekStartDay,
    primary_dashboard: null,
    effective_membership_level: 8,
    has_group_types: false,
  };
}
