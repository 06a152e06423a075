import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../context.js';
import { serializeProject, serializeProjectBasic } from '../../projects/project-serializer.js';
import { envelope, readPage } from '../pagination.js';
import { requireProject } from '../request-context.js';

const ProjectParams = Type.Object({ project_id: Type.String() });

export async function projectRoutes(app: FastifyInstance, context: AppContext): Promise<void> {
  app.get('/api/projects/', { config: { scopes: ['project:read'] } }, async (request) => {
    const page = readPage(request.query as Record<string, unknown>, { defaultLimit: 100, maxLimit: 1000 });
    const { total, projects } = await context.projects.list(request.apiKey!, page);
    return envelope(request, page, total, projects.map(serializeProjectBasic));
  });

  app.get(
    '/api/projects/:project_id/',
    { schema: { params: ProjectParams }, config: { scopes: ['project:read'] } },
    async (request) => serializeProject(requireProject(request)),
  );

  app.patch(
    '/api/projects/:project_id/',
    {
      schema: { params: ProjectParams, body: Type.Object({}, { additionalProperties: true }) },
      config: { scopes: ['project:write'] },
    },
    async (request) => serializeProject(await context.projects.update(requireProject(request), request.body as object)),
  );
}
