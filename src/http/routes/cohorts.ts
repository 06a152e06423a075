import multipart from '@fastify/multipart';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { serializeCohort } from '../../cohorts/cohort-serializer.js';
import type { AppContext } from '../../context.js';
import { envelope, readPage } from '../pagination.js';
import { requireProject } from '../request-context.js';
import {
  AddPersonsBody,
  AddPersonsResult,
  CohortBody,
  CohortList,
  CohortListParams,
  CohortListQuery,
  CohortMembers,
  CohortMembersQuery,
  CohortParams,
  CohortRecord,
} from '../schemas/cohort-schemas.js';
import { itemId } from './item-id.js';

/** Largest cohort CSV accepted (one distinct id a line). */
const MAX_CSV_BYTES = 50 * 1024 * 1024;

/** Create and PATCH take JSON, or a form with a `csv` file for static cohorts. */
const BODY_TYPES = ['application/json', 'multipart/form-data'];

export async function cohortRoutes(app: FastifyInstance, context: AppContext): Promise<void> {
  // Its own scope, so the multipart parser (CSV uploads) applies to cohort routes only.
  await app.register(async (scope) => {
    // keyValues: text fields and the `csv` file (as a Buffer) arrive in request.body like JSON fields.
    await scope.register(multipart, { attachFieldsToBody: 'keyValues', limits: { fileSize: MAX_CSV_BYTES, files: 1 } });
    const api = scope.withTypeProvider<TypeBoxTypeProvider>();
    const base = '/api/projects/:project_id/cohorts';
    const { cohorts } = context;

    api.get(
      `${base}/`,
      {
        schema: {
          description: "The project's cohorts with their member counts now",
          params: CohortListParams,
          querystring: CohortListQuery,
          response: { 200: CohortList },
        },
        config: { scopes: ['cohort:read'] },
      },
      async (request) => {
        const page = readPage(request.query, { defaultLimit: 100, maxLimit: 1000 });
        const { total, cohorts: listed } = await cohorts.list(requireProject(request), page);
        return envelope(
          request,
          page,
          total,
          listed.map(({ cohort, count }) => serializeCohort(cohort, count)),
        );
      },
    );

    api.post(
      `${base}/`,
      {
        schema: {
          description: 'Creates a dynamic cohort (filters or groups) or a static one (is_static, members from a csv upload)',
          params: CohortListParams,
          consumes: BODY_TYPES,
          body: CohortBody,
          response: { 201: CohortRecord },
        },
        config: { scopes: ['cohort:write'] },
      },
      async (request, reply) => {
        const cohort = await cohorts.create(requireProject(request), request.apiKey!, request.body);
        const { count } = await cohorts.withCount(cohort);
        return reply.status(201).send(serializeCohort(cohort, count));
      },
    );

    api.get(
      `${base}/:id/`,
      {
        schema: { description: 'One cohort with its member count now', params: CohortParams, response: { 200: CohortRecord } },
        config: { scopes: ['cohort:read'] },
      },
      async (request) => {
        const { cohort, count } = await cohorts.withCount(await cohorts.get(requireProject(request), itemId(request.params.id)));
        return serializeCohort(cohort, count);
      },
    );

    api.patch(
      `${base}/:id/`,
      {
        schema: {
          description: 'Changes a cohort; a csv upload adds members to a static cohort; {"deleted": true} deletes it',
          params: CohortParams,
          consumes: BODY_TYPES,
          body: CohortBody,
          response: { 200: CohortRecord },
        },
        config: { scopes: ['cohort:write'] },
      },
      async (request) => {
        const updated = await cohorts.update(requireProject(request), itemId(request.params.id), request.body);
        const { count } = await cohorts.withCount(updated);
        return serializeCohort(updated, count);
      },
    );

    api.delete(
      `${base}/:id/`,
      {
        schema: {
          description: 'Deletes a cohort (soft: its id is never reused)',
          params: CohortParams,
          response: { 204: Type.Null({ description: 'Deleted' }) },
        },
        config: { scopes: ['cohort:write'] },
      },
      async (request, reply) => {
        await cohorts.delete(requireProject(request), itemId(request.params.id));
        return reply.status(204).send(null);
      },
    );

    api.get(
      `${base}/:id/persons/`,
      {
        schema: {
          description: "The cohort's members now, newest first",
          params: CohortParams,
          querystring: CohortMembersQuery,
          response: { 200: CohortMembers },
        },
        config: { scopes: ['cohort:read', 'person:read'] },
      },
      async (request) => {
        const page = readPage(request.query, { defaultLimit: 100, maxLimit: 10_000 });
        const { total, persons } = await cohorts.members(requireProject(request), itemId(request.params.id), page);
        return envelope(request, page, total, persons);
      },
    );

    api.patch(
      `${base}/:id/add_persons_to_static_cohort/`,
      {
        schema: { description: 'Persons join a static cohort', params: CohortParams, body: AddPersonsBody, response: { 200: AddPersonsResult } },
        config: { scopes: ['cohort:write'] },
      },
      async (request) => {
        await cohorts.addPersons(requireProject(request), itemId(request.params.id), request.body.person_ids);
        return { success: true };
      },
    );
  });
}
