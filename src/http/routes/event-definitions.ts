import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../context.js';
import { readEventDefinitionFilter } from '../../definitions/event-definition-query.js';
import { serializeEventDefinition } from '../../definitions/event-definition-serializer.js';
import type { EventDefinitionPatch } from '../../definitions/event-definition-service.js';
import { envelope, readPage } from '../pagination.js';
import { requireProject } from '../request-context.js';

const ListParams = Type.Object({ project_id: Type.String() });
const ItemParams = Type.Object({ project_id: Type.String(), id: Type.String() });
const PatchBody = Type.Object({}, { additionalProperties: true });

const PAGE = { defaultLimit: 100, maxLimit: 10_000 };

export async function eventDefinitionRoutes(app: FastifyInstance, context: AppContext): Promise<void> {
  const path = '/api/projects/:project_id/event_definitions/';

  app.get(path, { schema: { params: ListParams }, config: { scopes: ['event_definition:read'] } }, async (request) => {
    const query = request.query as Record<string, unknown>;
    const page = readPage(query, PAGE);
    const filter = readEventDefinitionFilter(query);
    const { total, views } = await context.eventDefinitions.list(requireProject(request), filter, page);
    return envelope(request, page, total, views.map(serializeEventDefinition));
  });

  app.get(`${path}:id/`, { schema: { params: ItemParams }, config: { scopes: ['event_definition:read'] } }, async (request) => {
    const { id } = request.params as { id: string };
    return serializeEventDefinition(await context.eventDefinitions.get(requireProject(request), id));
  });

  app.patch(
    `${path}:id/`,
    { schema: { params: ItemParams, body: PatchBody }, config: { scopes: ['event_definition:write'] } },
    async (request) => {
      const { id } = request.params as { id: string };
      const patch = request.body as EventDefinitionPatch;
      return serializeEventDefinition(
        await context.eventDefinitions.update(requireProject(request), id, patch, request.apiKey!.user.id),
      );
    },
  );

  app.delete(`${path}:id/`, { schema: { params: ItemParams }, config: { scopes: ['event_definition:write'] } }, async (request, reply) => {
    const { id } = request.params as { id: string };
    await context.eventDefinitions.delete(requireProject(request), id);
    return reply.status(204).send();
  });
}
