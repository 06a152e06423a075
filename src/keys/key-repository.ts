import type { CatalogDb } from '../storage/catalog/catalog.js';
import { parseJsonColumn } from '../util/json.js';

export interface StoredKey {
  id: string;
  label: string;
  maskValue: string;
  scopes: string[];
  scopedTeams: number[] | null;
  lastUsedAt: string | null;
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
  createdAt: string;
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
        created_at: key.createdAt,
        last_used_at: null,
      })
      .execute();
  }

  async findBySecureValue(secureValue: string): Promise<StoredKey | undefined> {
    const row = await this.db
      .selectFrom('personal_api_keys as k')
      .innerJoin('users as u', 'u.id', 'k.user_id')
      .select([
        'k.id',
        'k.label',
        'k.mask_value',
        'k.scopes',
        'k.scoped_teams',
        'k.last_used_at',
        'u.id as user_id',
        'u.email',
        'u.first_name',
        'u.organization_id',
        'u.is_active',
      ])
      .where('k.secure_value', '=', secureValue)
      .executeTakeFirst();
    if (!row) return undefined;
    return {
      id: row.id,
      label: row.label,
      maskValue: row.mask_value,
      scopes: parseJsonColumn<string[]>(row.scopes, []),
      scopedTeams: parseJsonColumn<number[] | null>(row.scoped_teams, null),
      lastUsedAt: row.last_used_at,
      user: {
        id: Number(row.user_id),
        email: row.email,
        firstName: row.first_name,
        organizationId: row.organization_id,
        isActive: Number(row.is_active) === 1,
      },
    };
  }

  async touchLastUsed(id: string, at: string): Promise<void> {
    await this.db.updateTable('personal_api_keys').set({ last_used_at: at }).where('id', '=', id).execute();
  }

}
