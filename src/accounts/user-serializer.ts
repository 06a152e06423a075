import { serializeProjectBasic } from '../projects/project-serializer.js';
import { serializeOrganization, serializeOrganizationBasic } from './organization-serializer.js';
import type { CurrentUser } from './user-service.js';

/**
 * PostHog's UserSerializer fields that clients read. Tally's users sign in with keys only: no
 * password, no second factor, no staff, an address nobody has to confirm. The user's uuid is
 * its distinct id, so it never changes.
 */
export function serializeUser(current: CurrentUser) {
  const { user } = current;
  return {
    id: user.id,
    uuid: user.uuid,
    distinct_id: user.uuid,
    first_name: user.firstName,
    last_name: '',
    email: user.email,
    date_joined: user.createdAt,
    is_staff: false,
    is_email_verified: true,
    has_password: false,
    is_2fa_enabled: false,
    team: current.team && serializeProjectBasic(current.team),
    organization: serializeOrganization(current.organization),
    organizations: [serializeOrganizationBasic(current.organization.organization)],
  };
}
