import type { Creator } from './action.js';

/** The creator columns a catalog read joins from `users as u`. */
export const CREATOR_COLUMNS = ['u.uuid as creator_uuid', 'u.email as creator_email', 'u.first_name as creator_first_name'] as const;

/** A catalog row with its `created_by_id` and the joined creator columns. */
export interface CreatorRow {
  created_by_id: number | null;
  creator_uuid: string | null;
  creator_email: string | null;
  creator_first_name: string | null;
}

export function creatorOf(row: CreatorRow): Creator | null {
  if (row.created_by_id === null || row.creator_uuid === null) return null;
  return { id: Number(row.created_by_id), uuid: row.creator_uuid, email: row.creator_email ?? '', firstName: row.creator_first_name ?? '' };
}

/** PostHog's UserBasicSerializer, from what the catalog knows of a user. */
export function serializeCreator(creator: Creator | null) {
  if (!creator) return null;
  return {
    id: creator.id,
    uuid: creator.uuid,
    distinct_id: creator.uuid,
    first_name: creator.firstName,
    last_name: '',
    email: creator.email,
    is_email_verified: null,
  };
}
