import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { serializeProject, serializeProjectBasic } from '../../projects/project-serializer.js';
import { envelope, readPage } from '../pagination.js';
import { requireProject } from '../request-context.js';
import { ProjectList, ProjectListQuery, ProjectParams, ProjectPatchBody, ProjectRecord } from '../schemas/project-schemas.js';

export async function projectRoutes(app: FastifyInstance, context: AppContext): Promise<void> {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.get(
    '/api/projects/',
    {
      schema: {
        description: "The projects of the key's organization by id; a key limited to projects is refused",
        querystring: ProjectListQuery,
        response: { 200: ProjectList },
      },
      config: { scopes: ['project:read'] },
    },
    async (request) => {
      const page = readPage(request.query, { defaultLimit: 100, maxLimit: 1000 });
      const { total, projects } = await context.projects.list(request.apiKey!, page);
      return envelope(request, page, total, projects.map(serializeProjectBasic));
    },
  );

  api.get(
    '/api/projects/:project_id/',
    { schema: { description: 'One project with its settings', params: ProjectParams, response: { 200: ProjectRecord } }, config: { scopes: ['project:read'] } },
    async (request) => serializeProject(requireProject(request)),
  );

  api.patch(
    '/api/projects/:project_id/',
    {
      schema: {
        description: 'Changes the name, time zone, week start, test-account filters or person display-name properties',
        params: ProjectParams,
        body: ProjectPatchBody,
        response: { 200: ProjectRecord },
      },
      config: { scopes: ['project:write'] },
    },
    async (request) => serializeProject(await context.projects.update(requireProject(request), request.body)),
  );
}
