import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { serializeAction } from '../../actions/action-serializer.js';
import type { AppContext } from '../../context.js';
import { envelope, readPage } from '../pagination.js';
import { requireProject } from '../request-context.js';
import { ActionBody, ActionList, ActionListParams, ActionListQuery, ActionParams, ActionRecord } from '../schemas/action-schemas.js';
import { itemId } from './item-id.js';

export async function actionRoutes(app: FastifyInstance, context: AppContext): Promise<void> {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const base = '/api/projects/:project_id/actions';

  api.get(
    `${base}/`,
    {
      schema: { description: "The project's actions, newest first", params: ActionListParams, querystring: ActionListQuery, response: { 200: ActionList } },
      config: { scopes: ['action:read'] },
    },
    async (request) => {
      const page = readPage(request.query, { defaultLimit: 100, maxLimit: 1000 });
      const { total, actions } = await context.actions.list(requireProject(request), page);
      return envelope(request, page, total, actions.map(serializeAction));
    },
  );

  api.post(
    `${base}/`,
    {
      schema: { description: 'Creates an action', params: ActionListParams, body: ActionBody, response: { 201: ActionRecord } },
      config: { scopes: ['action:write'] },
    },
    async (request, reply) => {
      const action = await context.actions.create(requireProject(request), request.apiKey!, request.body);
      return reply.status(201).send(serializeAction(action));
    },
  );

  api.get(
    `${base}/:id/`,
    { schema: { description: 'One action', params: ActionParams, response: { 200: ActionRecord } }, config: { scopes: ['action:read'] } },
    async (request) => serializeAction(await context.actions.get(requireProject(request), itemId(request.params.id))),
  );

  api.patch(
    `${base}/:id/`,
    {
      schema: { description: 'Changes an action; {"deleted": true} deletes it', params: ActionParams, body: ActionBody, response: { 200: ActionRecord } },
      config: { scopes: ['action:write'] },
    },
    async (request) => serializeAction(await context.actions.update(requireProject(request), itemId(request.params.id), request.body)),
  );

  api.delete(
    `${base}/:id/`,
    {
      schema: {
        description: 'Deletes an action (soft: its id is never reused)',
        params: ActionParams,
        response: { 204: Type.Null({ description: 'Deleted' }) },
      },
      config: { scopes: ['action:write'] },
    },
    async (request, reply) => {
      await context.actions.delete(requireProject(request), itemId(request.params.id));
      return reply.status(204).send(null);
    },
  );
}
