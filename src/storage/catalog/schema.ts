import type { ColumnType, Generated } from 'kysely';

/**
 * Catalog tables as Kysely sees them. Timestamps are ISO-8601 UTC text and JSON values are
 * text, so the same repository code runs unchanged on SQLite and PostgreSQL.
 */
export interface OrganizationTable {
  id: string;
  name: string;
  created_at: string;
}

export interface UserTable {
  id: Generated<number>;
  uuid: string;
  email: string;
  first_name: string;
  organization_id: string;
  is_active: number;
  created_at: string;
}

export interface ProjectTable {
  id: Generated<number>;
  uuid: string;
  organization_id: string;
  name: string;
  api_token: string;
  timezone: string;
  week_start_day: number | null;
  test_account_filters: string;
  person_display_name_properties: string | null;
  ingested_event: number;
  created_at: string;
  updated_at: string;
}

export interface PersonalApiKeyTable {
  id: string;
  user_id: number;
  label: string;
  secure_value: string;
  mask_value: string;
  scopes: string;
  scoped_teams: string | null;
  scoped_organizations: string | null;
  created_at: string;
  last_used_at: string | null;
}

export interface PersonTable {
  id: Generated<number>;
  uuid: string;
  team_id: number;
  properties: string;
  is_identified: number;
  created_at: string;
  last_seen_at: string | null;
  version: number;
}

export interface PersonDistinctIdTable {
  id: Generated<number>;
  team_id: number;
  distinct_id: string;
  person_id: number;
}

export interface GroupTypeMappingTable {
  team_id: number;
  group_type: string;
  group_type_index: number;
}

export interface GroupTable {
  team_id: number;
  group_type_index: number;
  group_key: string;
  properties: string;
  created_at: string;
  version: number;
}

export interface EventDefinitionTable {
  id: string;
  team_id: number;
  name: string;
  created_at: string | null;
  last_seen_at: string | null;
  updated_at: string | null;
  description: string | null;
  tags: string;
  verified: number;
  verified_at: string | null;
  verified_by_id: number | null;
  hidden: number;
  owner_id: number | null;
}

export interface PropertyDefinitionTable {
  id: string;
  team_id: number;
  name: string;
  /** 1 event, 2 person, 3 group, 4 session */
  type: number;
  /** -1 unless a group property */
  group_type_index: number;
  property_type: string | null;
  is_numerical: number;
  tags: string;
  description: string | null;
  created_at: string;
  updated_at: string | null;
  /** 0/1, default 0; never both 1. */
  hidden: Generated<number>;
  verified: Generated<number>;
}

export interface EventPropertyTable {
  team_id: number;
  event: string;
  property: string;
}

export interface WarehouseOutboxTable {
  id: Generated<number>;
  target: string;
  /** Empty: builds before `encoded` wrote JSON lines here (catalog migration 015 refuses a catalog still holding one). */
  row: string;
  /** The replica rows in RowBinary (see `packOutboxEntries`); null only in rows of those builds. */
  encoded: Buffer | null;
}

export interface ActivityLogTable {
  id: Generated<number>;
  uuid: string;
  team_id: number;
  /** What kind of item: `Person`, … */
  scope: string;
  item_id: string;
  activity: string;
  user_id: number | null;
  /** JSON: `{changes, trigger, type, name, short_id}` */
  detail: string;
  created_at: string;
}

export interface EventDeletionTaskTable {
  id: Generated<number>;
  team_id: number;
  person_uuid: string;
  /** JSON array of the person's distinct ids when it was deleted. */
  distinct_ids: string;
  created_at: string;
  created_by_id: number | null;
  delete_verified_at: string | null;
  attempts: number;
  last_error: string | null;
}

export interface ActionTable {
  id: Generated<number>;
  team_id: number;
  name: string | null;
  description: string;
  /** JSON array of steps. */
  steps: string;
  deleted: number;
  created_by_id: number | null;
  created_at: string;
  updated_at: string;
}

export interface CohortTable {
  id: Generated<number>;
  team_id: number;
  name: string | null;
  description: string;
  /** JSON `{properties: <property group>}`, normalised from `filters` or legacy `groups`. */
  filters: string;
  /** JSON array: the legacy `groups` as sent (empty when `filters` was used). */
  groups: string;
  is_static: number;
  deleted: number;
  created_by_id: number | null;
  created_at: string;
  updated_at: string;
}

export interface StaticCohortMemberTable {
  cohort_id: number;
  team_id: number;
  person_uuid: string;
  created_at: string;
}

/**
 * One accepted capture request, waiting to be processed: the capture log of a PostgreSQL catalog.
 * The embedded stores keep theirs in files (FileCaptureLog), and their catalog's table stays empty.
 */
export interface CaptureLogTable {
  id: Generated<number>;
  team_id: number;
  /** When the request arrived, epoch milliseconds: the events' `created_at`. */
  received_at: number;
  event_count: number;
  /** The request's events after normalisation, a JSON array of LoggedEvent. */
  events: string;
}

/** A warning about an ingested event (see `IngestionWarning`); `timestamp` is when its request was received. */
export interface IngestionWarningTable {
  id: Generated<number>;
  team_id: number;
  type: string;
  /** JSON object. */
  details: string;
  timestamp: string;
}

/** An event the consumer could not store, as the capture log held it, with the error. */
export interface DeadLetterEventTable {
  id: Generated<number>;
  team_id: number;
  /** Null when the log entry itself could not be read as events. */
  event_uuid: string | null;
  event: string | null;
  distinct_id: string | null;
  /** The logged event's JSON (or the whole entry's text, when it could not be read). */
  payload: string;
  error: string;
  /** When its request was received, epoch milliseconds. */
  received_at: number;
  failed_at: string;
}

/** A saved insight: a legacy `filters` object or a `query` node, as sent (JSON). */
export interface InsightTable {
  id: Generated<number>;
  team_id: number;
  short_id: string;
  name: string | null;
  derived_name: string | null;
  description: string;
  /** JSON object or null. */
  query: string | null;
  /** JSON object. */
  filters: string;
  /** TRENDS, FUNNELS, …, JSON or SQL: what the `insight` list filter matches. */
  kind: string;
  /** JSON array of strings. */
  tags: string;
  favorited: number;
  saved: number;
  deleted: number;
  created_by_id: number | null;
  last_modified_by_id: number | null;
  created_at: string;
  last_modified_at: string;
  updated_at: string;
  /** JSON of the last computed result, answered until the next refresh. */
  kept_result: string | null;
  last_refresh: string | null;
}

export interface DashboardTable {
  id: Generated<number>;
  team_id: number;
  name: string | null;
  description: string;
  pinned: number;
  /** JSON array of strings. */
  tags: string;
  /** JSON objects. */
  filters: string;
  variables: string;
  deleted: number;
  created_by_id: number | null;
  created_at: string;
  last_accessed_at: string | null;
  last_refresh: string | null;
}

export interface DashboardTextTable {
  id: Generated<number>;
  team_id: number;
  body: string | null;
  created_by_id: number | null;
  created_at: string;
}

/** One tile of a dashboard: an insight or a text. */
export interface DashboardTileTable {
  id: Generated<number>;
  team_id: number;
  dashboard_id: number;
  insight_id: number | null;
  text_id: number | null;
  color: string | null;
  /** JSON object. */
  layouts: string;
  deleted: number;
  created_at: string;
}

export interface AnnotationTable {
  id: Generated<number>;
  team_id: number;
  organization_id: string;
  content: string | null;
  date_marker: string | null;
  creation_type: string;
  insight_id: number | null;
  dashboard_id: number | null;
  scope: string;
  deleted: number;
  created_by_id: number | null;
  created_at: string;
  updated_at: string;
}

/** The count of person-writing transactions (one row, id 1); see migration 014. */
export interface PersonWriteEpochTable {
  id: number;
  epoch: ColumnType<number | string, number, number>;
}

export interface CatalogSchema {
  organizations: OrganizationTable;
  users: UserTable;
  projects: ProjectTable;
  personal_api_keys: PersonalApiKeyTable;
  persons: PersonTable;
  person_distinct_ids: PersonDistinctIdTable;
  group_type_mappings: GroupTypeMappingTable;
  groups: GroupTable;
  event_definitions: EventDefinitionTable;
  property_definitions: PropertyDefinitionTable;
  event_properties: EventPropertyTable;
  warehouse_outbox: WarehouseOutboxTable;
  capture_log: CaptureLogTable;
  ingestion_warnings: IngestionWarningTable;
  dead_letter_events: DeadLetterEventTable;
  activity_log: ActivityLogTable;
  event_deletion_tasks: EventDeletionTaskTable;
  actions: ActionTable;
  cohorts: CohortTable;
  static_cohort_members: StaticCohortMemberTable;
  insights: InsightTable;
  dashboards: DashboardTable;
  dashboard_texts: DashboardTextTable;
  dashboard_tiles: DashboardTileTable;
  annotations: AnnotationTable;
  person_write_epoch: PersonWriteEpochTable;
}
