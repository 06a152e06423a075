import { serializeProjectBasic } from '../projects/project-serializer.js';
import type { Organization } from './account-repository.js';
import type { OrganizationView } from './organization-service.js';

/** Every user of an organization is its owner: Tally has no roles. */
export const OWNER_MEMBERSHIP_LEVEL = 8;

const MAX_SLUG_LENGTH = 48;

/**
 * The organization's slug, as PostHog makes one from the name: ASCII letters, digits, `_` and
 * single hyphens. An organization's name never changes, so neither does its slug.
 */
function slugOf(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9_\s-]/g, '')
    .replace(/[\s-]+/g, '-')
    .replace(/^[-_]+|[-_]+$/g, '')
    .slice(0, MAX_SLUG_LENGTH)
    .replace(/[-_]+$/, '');
  return slug === '' ? 'organization' : slug;
}

/** The short form users list their organizations in. */
export function serializeOrganizationBasic(organization: Organization) {
  return {
    id: organization.id,
    name: organization.name,
    slug: slugOf(organization.name),
    membership_level: OWNER_MEMBERSHIP_LEVEL,
  };
}

/** PostHog's OrganizationSerializer, without the billing and access-control settings Tally has none of. */
export function serializeOrganization(view: OrganizationView) {
  const { organization } = view;
  return {
    id: organization.id,
    name: organization.name,
    slug: slugOf(organization.name),
    created_at: organization.createdAt,
    updated_at: organization.updatedAt,
    membership_level: OWNER_MEMBERSHIP_LEVEL,
    member_count: view.memberCount,
    teams: view.projects.map(serializeProjectBasic),
    projects: view.projects.map((project) => ({ id: project.id, name: project.name, organization_id: project.organizationId })),
    metadata: {},
    available_product_features: [],
  };
}
