import type { CatalogDb } from '../storage/catalog/catalog.js';
import { parseJsonColumn } from '../util/json.js';

/** A key as its owner sees it: never its value, which is stored only as a hash. */
export interface KeyRecord {
  id: string;
  userId: number;
  label: string;
  maskValue: string;
  scopes: string[];
  scopedTeams: number[] | null;
  scopedOrganizations: string[] | null;
  createdAt: string;
  lastUsedAt: string | null;
}

export interface StoredKey extends KeyRecord {
  user: { id: number; email: string; firstName: string; organizationId: string; isActive: boolean };
}

export interface NewKey {
  id: string;
  userId: number;
  label: string;
  secureValue: string;
  maskValue: string;
  scopes: string[];
  scopedTeams: number[] | null;
  scopedOrganizations: string[] | null;
  createdAt: string;
}

const KEY_COLUMNS = [
  'k.id',
  'k.user_id',
  'k.label',
  'k.mask_value',
  'k.scopes',
  'k.scoped_teams',
  'k.scoped_organizations',
  'k.created_at',
  'k.last_used_at',
] as const;

interface KeyRow {
  id: string;
  user_id: number;
  label: string;
  mask_value: string;
  scopes: string;
  scoped_teams: string | null;
  scoped_organizations: string | null;
  created_at: string;
  last_used_at: string | null;
}

function toRecord(row: KeyRow): KeyRecord {
  return {
    id: row.id,
    userId: Number(row.user_id),
    label: row.label,
    maskValue: row.mask_value,
    scopes: parseJsonColumn<string[]>(row.scopes, []),
    scopedTeams: parseJsonColumn<number[] | null>(row.scoped_teams, null),
    scopedOrganizations: parseJsonColumn<string[] | null>(row.scoped_organizations, null),
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
  };
}

export class KeyRepository {
  constructor(private readonly db: CatalogDb) {}

  async insert(key: NewKey): Promise<void> {
    await this.db
      .insertInto('personal_api_keys')
      .values({
        id: key.id,
        user_id: key.userId,
        label: key.label,
        secure_value: key.secureValue,
        mask_value: key.maskValue,
        scopes: JSON.stringify(key.scopes),
        scoped_teams: key.scopedTeams === null ? null : JSON.stringify(key.scopedTeams),
        scoped_organizations: key.scopedOrganizations === null ? null : JSON.stringify(key.scopedOrganizations),
        created_at: key.createdAt,
        last_used_at: null,
      })
      .execute();
  }

  async findBySecureValue(secureValue: string): Promise<StoredKey | undefined> {
    const row = await this.db
      .selectFrom('personal_api_keys as k')
      .innerJoin('users as u', 'u.id', 'k.user_id')
      .select([...KEY_COLUMNS, 'u.email', 'u.first_name', 'u.organization_id', 'u.is_active'])
      .where('k.secure_value', '=', secureValue)
      .executeTakeFirst();
    if (!row) return undefined;
    const record = toRecord(row);
    return {
      ...record,
      user: {
        id: record.userId,
        email: row.email,
        firstName: row.first_name,
        organizationId: row.organization_id,
        isActive: Number(row.is_active) === 1,
      },
    };
  }

  /** The user's keys, newest first. */
  async listForUser(userId: number): Promise<KeyRecord[]> {
    const rows = await this.db
      .selectFrom('personal_api_keys as k')
      .select(KEY_COLUMNS)
      .where('k.user_id', '=', userId)
      .orderBy('k.created_at', 'desc')
      .orderBy('k.id', 'desc')
      .execute();
    return rows.map(toRecord);
  }

  async findForUser(userId: number, id: string): Promise<KeyRecord | undefined> {
    const row = await this.db
      .selectFrom('personal_api_keys as k')
      .select(KEY_COLUMNS)
      .where('k.user_id', '=', userId)
      .where('k.id', '=', id)
      .executeTakeFirst();
    return row && toRecord(row);
  }

  /** Whether a key of the user was deleted. */
  async deleteForUser(userId: number, id: string): Promise<boolean> {
    const result = await this.db.deleteFrom('personal_api_keys').where('user_id', '=', userId).where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async touchLastUsed(id: string, at: string): Promise<void> {
    await this.db.updateTable('personal_api_keys').set({ last_used_at: at }).where('id', '=', id).execute();
  }
}
