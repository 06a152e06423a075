import type { Creator } from './action.js';

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
