import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { serializeCohort } from '../../cohorts/cohort-serializer.js';
import type { AppContext } from '../../context.js';
import { envelope, readPage } from '../pagination.js';
import { requireProject } from '../request-context.js';
import { itemId } from './item-id.js';

const ListParams = Type.Object({ project_id: Type.String() });
const ItemParams = Type.Object({ project_id: Type.String(), id: Type.String() });

/** Largest cohort CSV accepted (one distinct id a line). */
const MAX_CSV_BYTES = 50 * 1024 * 1024;

export async function cohortRoutes(app: FastifyInstance, context: AppContext): Promise<void> {
  // Its own scope, so the multipart parser (CSV uploads) applies to cohort routes only.
  await app.register(async (scope) => {
    // keyValues: text fields and the `csv` file (as a Buffer) arrive in request.body like JSON fields.
    await scope.register(multipart, { attachFieldsToBody: 'keyValues', limits: { fileSize: MAX_CSV_BYTES, files: 1 } });
    const base = '/api/projects/:project_id/cohorts';
    const { cohorts } = context;

    scope.get(`${base}/`, { schema: { params: ListParams }, config: { scopes: ['cohort:read'] } }, async (request) => {
      const page = readPage(request.query as Record<string, unknown>, { defaultLimit: 100, maxLimit: 1000 });
      const { total, cohorts: listed } = await cohorts.list(requireProject(request), page);
      return envelope(request, page, total, listed.map(({ cohort, count }) => serializeCohort(cohort, count)));
    });

    scope.post(`${base}/`, { schema: { params: ListParams }, config: { scopes: ['cohort:write'] } }, async (request, reply) => {
      const cohort = await cohorts.create(requireProject(request), request.apiKey!, request.body);
      const { count } = await cohorts.withCount(cohort);
      return reply.status(201).send(serializeCohort(cohort, count));
    });

    scope.get<{ Params: { id: string } }>(`${base}/:id/`, { schema: { params: ItemParams }, config: { scopes: ['cohort:read'] } }, async (request) => {
      const { cohort, count } = await cohorts.withCount(await cohorts.get(requireProject(request), itemId(request.params.id)));
      return serializeCohort(cohort, count);
    });

    scope.patch<{ Params: { id: string } }>(
      `${base}/:id/`,
      { schema: { params: ItemParams }, config: { scopes: ['cohort:write'] } },
      async (request) => {
        const updated = await cohorts.update(requireProject(request), itemId(request.params.id), request.body);
        const { count } = await cohorts.withCount(updated);
        return serializeCohort(updated, count);
      },
    );

    scope.delete<{ Params: { id: string } }>(
      `${base}/:id/`,
      { schema: { params: ItemParams }, config: { scopes: ['cohort:write'] } },
      async (request, reply) => {
        await cohorts.delete(requireProject(request), itemId(request.params.id));
        return reply.status(204).send();
      },
    );

    scope.get<{ Params: { id: string } }>(
      `${base}/:id/persons/`,
      { schema: { params: ItemParams }, config: { scopes: ['cohort:read', 'person:read'] } },
      async (request) => {
        const page = readPage(request.query as Record<string, unknown>, { defaultLimit: 100, maxLimit: 10_000 });
        const { total, persons } = await cohorts.members(requireProject(request), itemId(request.params.id), page);
        return envelope(request, page, total, persons);
      },
    );

    scope.patch<{ Params: { id: string } }>(
      `${base}/:id/add_persons_to_static_cohort/`,
      { schema: { params: ItemParams }, config: { scopes: ['cohort:write'] } },
      async (request) => {
        await cohorts.addPersons(requireProject(request), itemId(request.params.id), request.body);
        return { success: true };
      },
    );
  });
}
