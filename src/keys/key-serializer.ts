import type { KeyRecord } from './key-repository.js';

/**
 * PostHog's PersonalAPIKeySerializer shape. `value` is the key itself only in the answer that
 * created it; the scoping lists are always arrays, as clients validate them as such.
 */
export function serializeKey(key: KeyRecord, value: string | null = null) {
  return {
    id: key.id,
    label: key.label,
    value,
    mask_value: key.maskValue,
    created_at: key.createdAt,
    last_used_at: key.lastUsedAt,
    user_id: key.userId,
    scopes: key.scopes,
    scoped_teams: key.scopedTeams ?? [],
    scoped_organizations: key.scopedOrganizations ?? [],
    last_rolled_at: null,
  };
}
