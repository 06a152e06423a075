import type { Generated } from 'kysely';

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
  created_at: string;
  last_used_at: string | null;
}

export interface CatalogSchema {
  organizations: OrganizationTable;
  users: UserTable;
  projects: ProjectTable;
  personal_api_keys: PersonalApiKeyTable;
}
