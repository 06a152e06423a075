import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../context.js';
import { readEventDefinitionFilter } from '../../definitions/event-definition-query.js';
import { serializeEventDefinition } from '../../definitions/event-definition-serializer.js';
import { envelope, readPage } from '../pagination.js';
import { requireProject } from '../request-context.js';
import {
  EventDefinitionList,
  EventDefinitionListParams,
  EventDefinitionListQuery,
  EventDefinitionParams,
  EventDefinitionPatchBody,
  EventDefinitionRecord,
} from '../schemas/event-definition-schemas.js';

const PAGE = { defaultLimit: 100, maxLimit: 10_000 };

export async function eventDefinitionRoutes(app: FastifyInstance, context: AppContext): Promise<void> {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const path = '/api/projects/:project_id/event_definitions/';

  api.get(
    path,
    {
      schema: {
        description: 'The events the project has seen (and definitions kept after their events stopped)',
        params: EventDefinitionListParams,
        querystring: EventDefinitionListQuery,
        response: { 200: EventDefinitionList },
      },
      config: { scopes: ['event_definition:read'] },
    },
    async (request) => {
      const page = readPage(request.query, PAGE);
      const { total, views } = await context.eventDefinitions.list(requireProject(request), readEventDefinitionFilter(request.query), page);
      return envelope(request, page, total, views.map(serializeEventDefinition));
    },
  );

  api.get(
    `${path}:id/`,
    {
      schema: { description: 'One event definition', params: EventDefinitionParams, response: { 200: EventDefinitionRecord } },
      config: { scopes: ['event_definition:read'] },
    },
    async (request) => serializeEventDefinition(await context.eventDefinitions.get(requireProject(request), request.params.id)),
  );

  api.patch(
    `${path}:id/`,
    {
      schema: {
        description: 'Changes the description, tags, owner, verified or hidden; name and times are read-only',
        params: EventDefinitionParams,
        body: EventDefinitionPatchBody,
        response: { 200: EventDefinitionRecord },
      },
      config: { scopes: ['event_definition:write'] },
    },
    async (request) =>
      serializeEventDefinition(await context.eventDefinitions.update(requireProject(request), request.params.id, request.body, request.apiKey!.user.id)),
  );

  api.delete(
    `${path}:id/`,
    {
      schema: {
        description: 'Deletes the definition; the events stay',
        params: EventDefinitionParams,
        response: { 204: Type.Null({ description: 'Deleted' }) },
      },
      config: { scopes: ['event_definition:write'] },
    },
    async (request, reply) => {
      await context.eventDefinitions.delete(requireProject(request), request.params.id);
      return reply.status(204).send(null);
    },
  );
}
