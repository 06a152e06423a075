import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../context.js';
import { PermissionDenied } from '../../errors.js';
import { grantsScope } from '../../keys/scopes.js';
import type { QueryRequest } from '../../query-api/query-api.js';
import { requireProject } from '../request-context.js';

const Params = Type.Object({ project_id: Type.String() });
const IdParams = Type.Object({
  project_id: Type.String(),
  id: Type.String({ description: 'A query id (client_query_id), or the kind in POST /query/<Kind>/' }),
});

const QueryBody = Type.Object(
  {
    query: Type.Optional(
      Type.Unknown({
        description:
          'The query node, an object with a kind: HogQLQuery, EventsQuery, HogQLMetadata, TrendsQuery, or a wrapper (InsightVizNode, DataTableNode, DataVisualizationNode) with a source',
      }),
    ),
    refresh: Type.Optional(
      Type.Unknown({
        description: 'blocking, force_blocking, async, force_async, lazy_async, force_cache, true or false; every mode computes before answering',
      }),
    ),
    client_query_id: Type.Optional(Type.Unknown({ description: 'The id the query status is kept under (async modes)' })),
    name: Type.Optional(Type.Unknown()),
    async: Type.Optional(Type.Unknown({ description: 'Legacy: true answers a query_status, as refresh=async does' })),
  },
  { additionalProperties: true },
);

const QueryResponse = Type.Object(
  {
    results: Type.Optional(Type.Unknown({ description: 'Rows (HogQLQuery, EventsQuery) or series (TrendsQuery)' })),
    columns: Type.Optional(Type.Array(Type.String())),
    types: Type.Optional(Type.Array(Type.Unknown())),
    hasMore: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
    limit: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
    offset: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
    is_cached: Type.Boolean(),
    last_refresh: Type.String({ format: 'date-time' }),
    timezone: Type.String(),
    timings: Type.Array(Type.Unknown()),
    query_status: Type.Optional(Type.Object({}, { additionalProperties: true })),
  },
  { additionalProperties: true },
);

const StatusResponse = Type.Object({ query_status: Type.Object({}, { additionalProperties: true }) });

/** `query:read`, or `insight:read` for keys made before the query scope existed. */
async function requireQueryScope(request: FastifyRequest): Promise<void> {
  const scopes = request.apiKey?.scopes ?? [];
  if (!grantsScope(scopes, 'query:read') && !grantsScope(scopes, 'insight:read')) {
    throw new PermissionDenied("API key missing required scope 'query:read'");
  }
}

export async function queryRoutes(app: FastifyInstance, context: AppContext): Promise<void> {
  const run = (request: FastifyRequest, pathKind: string | null) => context.query.run(requireProject(request), (request.body ?? {}) as QueryRequest, pathKind);

  app.post(
    '/api/projects/:project_id/query/',
    {
      schema: {
        description:
          "Runs a query node (PostHog's query API): HogQLQuery, EventsQuery, HogQLMetadata, TrendsQuery, FunnelsQuery, FunnelCorrelationQuery, RetentionQuery, LifecycleQuery, StickinessQuery, PathsQuery, ActorsQuery and its sources, or a wrapper running its source",
        params: Params,
        body: QueryBody,
        response: { 200: QueryResponse },
      },
      preHandler: requireQueryScope,
    },
    (request) => run(request, null),
  );

  app.post(
    '/api/projects/:project_id/query/:id/',
    {
      schema: {
        description: 'Runs a query node whose kind must be the one in the path',
        params: IdParams,
        body: QueryBody,
        response: { 200: QueryResponse },
      },
      preHandler: requireQueryScope,
    },
    (request) => run(request, (request.params as { id: string }).id),
  );

  app.get(
    '/api/projects/:project_id/query/:id/',
    {
      schema: { description: 'The status of an async-mode query, kept for at least ten minutes', params: IdParams, response: { 200: StatusResponse } },
      preHandler: requireQueryScope,
    },
    async (request) => ({ query_status: context.query.status(requireProject(request), (request.params as { id: string }).id) }),
  );

  app.delete(
    '/api/projects/:project_id/query/:id/',
    {
      schema: {
        description: 'Cancels a query: Tally has finished it already, so this forgets its status',
        params: IdParams,
        response: { 204: Type.Null({ description: 'Forgotten' }) },
      },
      preHandler: requireQueryScope,
    },
    async (request, reply: FastifyReply) => {
      context.query.cancel(requireProject(request), (request.params as { id: string }).id);
      return reply.status(204).send();
    },
  );
}
