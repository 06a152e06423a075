import { v7 as uuidv7 } from 'uuid';
import type { CatalogDb } from '../storage/catalog/catalog.js';
import { nowIso } from '../util/time.js';

export interface Organization {
  id: string;
  name: string;
  createdAt: string;
  updatedAt: string;
}

export interface User {
  id: number;
  uuid: string;
  email: string;
  firstName: string;
  organizationId: string;
  isActive: boolean;
  createdAt: string;
}

type UserRow = {
  id: number;
  uuid: string;
  email: string;
  first_name: string;
  organization_id: string;
  is_active: number;
  created_at: string;
};

/** Nothing changes an organization once it is made, so it was last updated when it was created. */
function toOrganization(row: { id: string; name: string; created_at: string }): Organization {
  return { id: row.id, name: row.name, createdAt: row.created_at, updatedAt: row.created_at };
}

function toUser(row: UserRow): User {
  return {
    id: Number(row.id),
    uuid: row.uuid,
    email: row.email,
    firstName: row.first_name,
    organizationId: row.organization_id,
    isActive: Number(row.is_active) === 1,
    createdAt: row.created_at,
  };
}

export class AccountRepository {
  constructor(private readonly db: CatalogDb) {}

  async createOrganization(name: string): Promise<Organization> {
    const organization = { id: uuidv7(), name, created_at: nowIso() };
    await this.db.insertInto('organizations').values(organization).execute();
    return toOrganization(organization);
  }

  async firstOrganization(): Promise<Organization | undefined> {
    const row = await this.db.selectFrom('organizations').selectAll().orderBy('created_at').limit(1).executeTakeFirst();
    return row && toOrganization(row);
  }

  async findOrganization(id: string): Promise<Organization | undefined> {
    const row = await this.db.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toOrganization(row);
  }

  async countActiveMembers(organizationId: string): Promise<number> {
    const row = await this.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('organization_id', '=', organizationId)
      .where('is_active', '=', 1)
      .executeTakeFirstOrThrow();
    return Number(row.n);
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

  async findUserById(id: number): Promise<User | undefined> {
    const row = await this.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toUser(row);
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
