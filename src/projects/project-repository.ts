import { v7 as uuidv7 } from 'uuid';
import type { Selectable, Updateable } from 'kysely';
import type { CatalogDb } from '../storage/catalog/catalog.js';
import type { ProjectTable } from '../storage/catalog/schema.js';
import { parseJsonColumn } from '../util/json.js';
import { nowIso } from '../util/time.js';
import type { Project } from './project.js';
import type { PropertyFilterInput } from './test-account-filters.js';

function toProject(row: Selectable<ProjectTable>): Project {
  const weekStartDay = row.week_start_day === null ? null : Number(row.week_start_day);
  return {
    id: Number(row.id),
    uuid: row.uuid,
    organizationId: row.organization_id,
    name: row.name,
    apiToken: row.api_token,
    timezone: row.timezone,
    weekStartDay: weekStartDay === 1 ? 1 : weekStartDay === 0 ? 0 : null,
    testAccountFilters: parseJsonColumn<PropertyFilterInput[]>(row.test_account_filters, []),
    personDisplayNameProperties: parseJsonColumn<string[] | null>(row.person_display_name_properties, null),
    ingestedEvent: Number(row.ingested_event) === 1,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export interface NewProject {
  organizationId: string;
  name: string;
  apiToken: string;
  timezone: string;
  testAccountFilters: PropertyFilterInput[];
}

export interface ProjectChanges {
  name?: string;
  timezone?: string;
  weekStartDay?: 0 | 1 | null;
  testAccountFilters?: PropertyFilterInput[];
  personDisplayNameProperties?: string[] | null;
}

export class ProjectRepository {
  constructor(private readonly db: CatalogDb) {}

  async create(input: NewProject): Promise<Project> {
    const now = nowIso();
    const row = await this.db
      .insertInto('projects')
      .values({
        uuid: uuidv7(),
        organization_id: input.organizationId,
        name: input.name,
        api_token: input.apiToken,
        timezone: input.timezone,
        week_start_day: null,
        test_account_filters: JSON.stringify(input.testAccountFilters),
        person_display_name_properties: null,
        ingested_event: 0,
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toProject(row);
  }

  async count(): Promise<number> {
    const row = await this.db
      .selectFrom('projects')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async listForOrganization(organizationId: string, page: { limit: number; offset: number; ids?: number[] }): Promise<{ total: number; projects: Project[] }> {
    let query = this.db.selectFrom('projects').where('organization_id', '=', organizationId);
    if (page.ids) query = query.where('id', 'in', page.ids.length > 0 ? page.ids : [-1]);
    const total = await query.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    const rows = await query.selectAll().orderBy('id').limit(page.limit).offset(page.offset).execute();
    return { total: Number(total.n), projects: rows.map(toProject) };
  }

  async findById(id: number): Promise<Project | undefined> {
    const row = await this.db.selectFrom('projects').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toProject(row);
  }

  async findByToken(apiToken: string): Promise<Project | undefined> {
    const row = await this.db.selectFrom('projects').selectAll().where('api_token', '=', apiToken).executeTakeFirst();
    return row && toProject(row);
  }

  async update(id: number, changes: ProjectChanges): Promise<Project | undefined> {
    const values: Updateable<ProjectTable> = { updated_at: nowIso() };
    if (changes.name !== undefined) values.name = changes.name;
    if (changes.timezone !== undefined) values.timezone = changes.timezone;
    if (changes.weekStartDay !== undefined) values.week_start_day = changes.weekStartDay;
    if (changes.testAccountFilters !== undefined) values.test_account_filters = JSON.stringify(changes.testAccountFilters);
    if (changes.personDisplayNameProperties !== undefined) {
      values.person_display_name_properties = changes.personDisplayNameProperties === null ? null : JSON.stringify(changes.personDisplayNameProperties);
    }
    await this.db.updateTable('projects').set(values).where('id', '=', id).execute();
    return this.findById(id);
  }

  async markIngestedEvent(id: number): Promise<void> {
    await this.db.updateTable('projects').set({ ingested_event: 1 }).where('id', '=', id).where('ingested_event', '=', 0).execute();
  }
}
