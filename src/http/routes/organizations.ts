import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { serializeOrganization } from '../../accounts/organization-serializer.js';
import type { AppContext } from '../../context.js';
import { serializeProject, serializeProjectBasic } from '../../projects/project-serializer.js';
import { envelope, readPage } from '../pagination.js';

/** A project as /api/projects/ lists it; the fields not named here pass through as they are. */
export const ProjectBasic = Type.Object(
  {
    id: Type.Integer(),
    uuid: Type.String(),
    organization: Type.String(),
    project_id: Type.Integer(),
    api_token: Type.String(),
    name: Type.String(),
    timezone: Type.String(),
  },
  { additionalProperties: true },
);

export const Organization = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  slug: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
  membership_level: Type.Integer({ description: '8: owner' }),
  member_count: Type.Integer({ description: 'Active users' }),
  teams: Type.Array(ProjectBasic),
  projects: Type.Array(Type.Object({ id: Type.Integer(), name: Type.String(), organization_id: Type.String() })),
  metadata: Type.Object({}),
  available_product_features: Type.Array(Type.Unknown()),
});

export const OrganizationBasic = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  slug: Type.String(),
  membership_level: Type.Integer(),
});

const Page = Type.Object({
  limit: Type.Optional(Type.String({ description: 'Default 100, at most 1000' })),
  offset: Type.Optional(Type.String()),
});
const NoQuery = Type.Object({});

function listOf<T extends ReturnType<typeof Type.Object>>(item: T) {
  return Type.Object({
    count: Type.Integer(),
    next: Type.Union([Type.String(), Type.Null()]),
    previous: Type.Union([Type.String(), Type.Null()]),
    results: Type.Array(item),
  });
}

const OrganizationParams = Type.Object({
  organization_id: Type.String({ description: "The organization's UUID, or `@current`" }),
});
const ProjectParams = Type.Object({
  organization_id: Type.String({ description: "The organization's UUID, or `@current`" }),
  id: Type.String({ description: 'The project id, or `@current`' }),
});

type OrganizationRequest = { Params: { organization_id: string } };
type ProjectRequest = { Params: { organization_id: string; id: string } };

/**
 * The key's organization, and its projects as /api/projects/ answers them. Keys limited to
 * projects are refused here by the auth hook: these paths name no project.
 */
export async function organizationRoutes(app: FastifyInstance, context: AppContext): Promise<void> {
  app.get(
    '/api/organizations/',
    {
      schema: { description: 'Your organizations (one)', querystring: Page, response: { 200: listOf(Organization) } },
      config: { scopes: ['organization:read'] },
    },
    async (request) => {
      const page = readPage(request.query as Record<string, unknown>, { defaultLimit: 100, maxLimit: 1000 });
      const all = await context.organizations.list(request.apiKey!);
      const results = all.slice(page.offset, page.offset + page.limit).map(serializeOrganization);
      return envelope(request, page, all.length, results);
    },
  );

  app.get<OrganizationRequest>(
    '/api/organizations/:organization_id/',
    {
      schema: { params: OrganizationParams, querystring: NoQuery, response: { 200: Organization } },
      config: { scopes: ['organization:read'] },
    },
    async (request) => serializeOrganization(await context.organizations.retrieve(request.apiKey!, request.params.organization_id)),
  );

  app.get<OrganizationRequest>(
    '/api/organizations/:organization_id/projects/',
    {
      schema: {
        description: 'What /api/projects/ answers',
        params: OrganizationParams,
        querystring: Page,
        response: { 200: listOf(ProjectBasic) },
      },
      config: { scopes: ['project:read'] },
    },
    async (request) => {
      await context.organizations.resolve(request.apiKey!, request.params.organization_id);
      const page = readPage(request.query as Record<string, unknown>, { defaultLimit: 100, maxLimit: 1000 });
      const { total, projects } = await context.projects.list(request.apiKey!, page);
      return envelope(request, page, total, projects.map(serializeProjectBasic));
    },
  );

  app.get<ProjectRequest>(
    '/api/organizations/:organization_id/projects/:id/',
    {
      schema: {
        description: 'What /api/projects/:id/ answers',
        params: ProjectParams,
        querystring: NoQuery,
        response: { 200: Type.Object({}, { additionalProperties: true }) },
      },
      config: { scopes: ['project:read'] },
    },
    async (request) => serializeProject(await context.organizations.project(request.apiKey!, request.params.organization_id, request.params.id)),
  );
}
