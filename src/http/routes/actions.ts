import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { serializeAction } from '../../actions/action-serializer.js';
import type { AppContext } from '../../context.js';
import { envelope, readPage } from '../pagination.js';
import { requireProject } from '../request-context.js';
import { itemId } from './item-id.js';

const ListParams = Type.Object({ project_id: Type.String() });
const ItemParams = Type.Object({ project_id: Type.String(), id: Type.String() });
const AnyBody = Type.Object({}, { additionalProperties: true });

export async function actionRoutes(app: FastifyInstance, context: AppContext): Promise<void> {
  const base = '/api/projects/:project_id/actions';

  app.get(`${base}/`, { schema: { params: ListParams }, config: { scopes: ['action:read'] } }, async (request) => {
    const page = readPage(request.query as Record<string, unknown>, { defaultLimit: 100, maxLimit: 1000 });
    const { total, actions } = await context.actions.list(requireProject(request), page);
    return envelope(request, page, total, actions.map(serializeAction));
  });

  app.post(`${base}/`, { schema: { params: ListParams, body: AnyBody }, config: { scopes: ['action:write'] } }, async (request, reply) => {
    const action = await context.actions.create(requireProject(request), request.apiKey!, request.body);
    return reply.status(201).send(serializeAction(action));
  });

  app.get<{ Params: { id: string } }>(`${base}/:id/`, { schema: { params: ItemParams }, config: { scopes: ['action:read'] } }, async (request) =>
    serializeAction(await context.actions.get(requireProject(request), itemId(request.params.id))),
  );

  app.patch<{ Params: { id: string } }>(
    `${base}/:id/`,
    { schema: { params: ItemParams, body: AnyBody }, config: { scopes: ['action:write'] } },
    async (request) => serializeAction(await context.actions.update(requireProject(request), itemId(request.params.id), request.body)),
  );

  app.delete<{ Params: { id: string } }>(
    `${base}/:id/`,
    { schema: { params: ItemParams }, config: { scopes: ['action:write'] } },
    async (request, reply) => {
      await context.actions.delete(requireProject(request), itemId(request.params.id));
      return reply.status(204).send();
    },
  );
}
