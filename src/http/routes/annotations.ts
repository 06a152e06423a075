import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { parseAnnotationListQuery } from '../../annotations/annotation-list-query.js';
import { serializeAnnotation } from '../../annotations/annotation-serializer.js';
import type { AppContext } from '../../context.js';
import { envelope, readPage } from '../pagination.js';
import { requireProject } from '../request-context.js';
import { itemId } from './item-id.js';
import { Nullable, UserBasic } from '../schemas/common-schemas.js';

const ListParams = Type.Object({ project_id: Type.String() });
const ItemParams = Type.Object({ project_id: Type.String(), id: Type.String() });
const NoQuery = Type.Object({});

const SCOPE_DESCRIPTION = 'project, organization (shown in every project of the organization), dashboard or dashboard_item (alias insight)';

const ListQuery = Type.Object({
  limit: Type.Optional(Type.String({ description: 'Page size, default 1000, at most 1000' })),
  offset: Type.Optional(Type.String()),
  scope: Type.Optional(Type.String({ description: SCOPE_DESCRIPTION })),
  search: Type.Optional(Type.String({ description: 'Words that must all be in the content (case-insensitive)' })),
  date_from: Type.Optional(Type.String({ description: 'ISO 8601; date_marker on or after it' })),
  date_to: Type.Optional(Type.String({ description: 'ISO 8601; date_marker on or before it' })),
});

const AnnotationRecord = Type.Object({
  id: Type.Integer(),
  content: Nullable(Type.String()),
  date_marker: Nullable(Type.String({ format: 'date-time' })),
  creation_type: Type.String({ description: 'USR or GIT' }),
  dashboard_item: Nullable(Type.Integer({ description: 'The insight id' })),
  dashboard_id: Nullable(Type.Integer()),
  dashboard_name: Nullable(Type.String()),
  insight_short_id: Nullable(Type.String()),
  insight_name: Nullable(Type.String()),
  insight_derived_name: Nullable(Type.String()),
  created_by: UserBasic,
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
  deleted: Type.Boolean(),
  scope: Type.String({ description: SCOPE_DESCRIPTION }),
});

const AnnotationList = Type.Object({
  count: Type.Integer(),
  next: Nullable(Type.String()),
  previous: Nullable(Type.String()),
  results: Type.Array(AnnotationRecord),
});

const AnnotationBody = Type.Object(
  {
    content: Type.Optional(Nullable(Type.String({ description: 'At most 400 characters' }))),
    date_marker: Type.Optional(Nullable(Type.String({ description: 'ISO 8601 date-time; without an offset, UTC' }))),
    creation_type: Type.Optional(Type.String({ description: 'USR (default) or GIT' })),
    dashboard_item: Type.Optional(Nullable(Type.Integer({ description: 'An insight of the project' }))),
    dashboard_id: Type.Optional(Nullable(Type.Integer({ description: 'A dashboard of the project' }))),
    scope: Type.Optional(
      Type.String({ description: `${SCOPE_DESCRIPTION}; default dashboard_item with an insight, dashboard with a dashboard, else project` }),
    ),
    deleted: Type.Optional(Type.Boolean({ description: 'true deletes (soft), false restores' })),
  },
  { additionalProperties: true },
);

export async function annotationRoutes(app: FastifyInstance, context: AppContext): Promise<void> {
  const base = '/api/projects/:project_id/annotations';
  const { annotations } = context;

  app.get(
    `${base}/`,
    {
      schema: {
        description: "The project's annotations and its organization's, latest date_marker first",
        params: ListParams,
        querystring: ListQuery,
        response: { 200: AnnotationList },
      },
      config: { scopes: ['annotation:read'] },
    },
    async (request) => {
      const query = request.query as Record<string, unknown>;
      const page = readPage(query, { defaultLimit: 1000, maxLimit: 1000 });
      const { total, annotations: listed } = await annotations.list(requireProject(request), parseAnnotationListQuery(query), page);
      return envelope(request, page, total, listed.map(serializeAnnotation));
    },
  );

  app.post(
    `${base}/`,
    {
      schema: { description: 'Creates an annotation', params: ListParams, querystring: NoQuery, body: AnnotationBody, response: { 201: AnnotationRecord } },
      config: { scopes: ['annotation:write'] },
    },
    async (request, reply) => {
      const created = await annotations.create(requireProject(request), request.apiKey!, request.body);
      return reply.status(201).send(serializeAnnotation(created));
    },
  );

  app.get<{ Params: { id: string } }>(
    `${base}/:id/`,
    {
      schema: { description: 'One annotation', params: ItemParams, querystring: NoQuery, response: { 200: AnnotationRecord } },
      config: { scopes: ['annotation:read'] },
    },
    async (request) => serializeAnnotation(await annotations.get(requireProject(request), itemId(request.params.id))),
  );

  app.patch<{ Params: { id: string } }>(
    `${base}/:id/`,
    {
      schema: {
        description: 'Changes an annotation; {"deleted": true} deletes it (DELETE is not allowed), {"deleted": false} restores it',
        params: ItemParams,
        querystring: NoQuery,
        body: AnnotationBody,
        response: { 200: AnnotationRecord },
      },
      config: { scopes: ['annotation:write'] },
    },
    async (request) => serializeAnnotation(await annotations.update(requireProject(request), itemId(request.params.id), request.body)),
  );
}
