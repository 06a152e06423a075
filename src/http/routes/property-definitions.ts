import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../context.js';
import { readPropertyDefinitionFilter } from '../../definitions/property-definition-query.js';
import { serializePropertyDefinition } from '../../definitions/property-definition-serializer.js';
import type { PropertyDefinitionPatch } from '../../definitions/property-definition-service.js';
import { envelope, readPage } from '../pagination.js';
import { requireProject } from '../request-context.js';

const ListParams = Type.Object({ project_id: Type.String() });
const ItemParams = Type.Object({ project_id: Type.String(), id: Type.String() });
const PatchBody = Type.Object({}, { additionalProperties: true });

const PAGE = { defaultLimit: 100, maxLimit: 10_000 };

export async function propertyDefinitionRoutes(app: FastifyInstance, context: AppContext): Promise<void> {
  const path = '/api/projects/:project_id/property_definitions/';

  app.get(path, { schema: { params: ListParams }, config: { scopes: ['property_definition:read'] } }, async (request) => {
    const query = request.query as Record<string, unknown>;
    const page = readPage(query, PAGE);
    const filter = readPropertyDefinitionFilter(query);
    const { total, definitions } = await context.propertyDefinitions.list(requireProject(request), filter, page);
    return envelope(request, page, total, definitions.map(serializePropertyDefinition));
  });

  app.get(`${path}:id/`, { schema: { params: ItemParams }, config: { scopes: ['property_definition:read'] } }, async (request) => {
    const { id } = request.params as { id: string };
    return serializePropertyDefinition(await context.propertyDefinitions.get(requireProject(request), id));
  });

  app.patch(
    `${path}:id/`,
    { schema: { params: ItemParams, body: PatchBody }, config: { scopes: ['property_definition:write'] } },
    async (request) => {
      const { id } = request.params as { id: string };
      const patch = request.body as PropertyDefinitionPatch;
      return serializePropertyDefinition(await context.propertyDefinitions.update(requireProject(request), id, patch));
    },
  );
}
