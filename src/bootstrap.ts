import type { AppContext } from './context.js';

export const BOOTSTRAP_EMAIL = 'admin@localhost';

export interface BootstrapResult {
  projectId: number;
  projectToken: string;
  personalApiKey: string;
}

/**
 * On an empty catalog: one organization, its admin user, project 1 and a `*` key. Returns the
 * credentials to print once; later starts return null and print nothing.
 */
export async function bootstrapIfEmpty(context: AppContext): Promise<BootstrapResult | null> {
  if (await context.accounts.firstOrganization()) return null;
  const organization = await context.accounts.createOrganization('Default organization');
  const user = await context.accounts.createUser({
    email: BOOTSTRAP_EMAIL,
    firstName: 'Admin',
    organizationId: organization.id,
  });
  const project = await context.projects.create({
    organizationId: organization.id,
    name: 'Default project',
    timezone: 'UTC',
    apiToken: context.config.projectToken ?? undefined,
    creatorEmail: user.email,
  });
  const { key } = await context.keys.create({
    userId: user.id,
    label: 'Bootstrap key',
    scopes: ['*'],
    scopedTeams: null,
    value: context.config.personalApiKey ?? undefined,
  });
  return { projectId: project.id, projectToken: project.apiToken, personalApiKey: key };
}

export function describeBootstrap(result: BootstrapResult): string {
  return [
    'Tally created a new catalog. Keep these; they are printed only once.',
    `  Project id:        ${result.projectId}`,
    `  Project token:     ${result.projectToken}   (for the PostHog SDKs)`,
    `  Personal API key:  ${result.personalApiKey}   (Authorization: Bearer … on /api)`,
  ].join('\n');
}
