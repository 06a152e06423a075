import { v7 as uuidv7 } from 'uuid';
import type { CatalogDb } from '../storage/catalog/catalog.js';
import { nowIso } from '../util/time.js';

export interface Organization {
  id: string;
  name: string;
  createdAt: string;
}

export interface User {
  id: number;
  uuid: string;
  email: string;
  firstName: string;
  organizationId: string;
  isActive: boolean;
}

type UserRow = {
  id: number;
  uuid: string;
  email: string;
  first_name: string;
  organization_id: string;
  is_active: number;
};

function toUser(row: UserRow): User {
  return {
    id: Number(row.id),
    uuid: row.uuid,
    email: row.email,
    firstName: row.first_name,
    organizationId: row.organization_id,
    isActive: Number(row.is_active) === 1,
  };
}

export class AccountRepository {
  constructor(private readonly db: CatalogDb) {}

  async createOrganization(name: string): Promise<Organization> {
    const organization = { id: uuidv7(), name, created_at: nowIso() };
    await this.db.insertInto('organizations').values(organization).execute();
    return { id: organization.id, name, createdAt: organization.created_at };
  }

  async firstOrganization(): Promise<Organization | undefined> {
    const row = await this.db.selectFrom('organizations').selectAll().orderBy('created_at').limit(1).executeTakeFirst();
    return row && { id: row.id, name: row.name, createdAt: row.created_at };
  }

  async createUser(input: { email: string; firstName: string; organizationId: string }): Promise<User> {
    const row = await this.db
      .insertInto('users')
      .values({
        uuid: uuidv7(),
        email: input.email,
        first_name: input.firstName,
        organization_id: input.organizationId,
        is_active: 1,
        created_at: nowIso(),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toUser(row);
  }

  async findUserByEmail(email: string): Promise<User | undefined> {
    const row = await this.db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
    return row && toUser(row);
  }

  async firstUser(): Promise<User | undefined> {
    const row = await this.db.selectFrom('users').selectAll().orderBy('id').limit(1).executeTakeFirst();
    return row && toUser(row);
  }
}
