import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../context.js';
import { refreshRequested } from '../../saved-insights/insight-results.js';
import { INSIGHT_ORDER_COLUMNS, parseInsightListQuery } from '../../saved-insights/saved-insight-list-query.js';
import { serializeInsight } from '../../saved-insights/saved-insight-serializer.js';
import { envelope, readPage } from '../pagination.js';
import { requireProject } from '../request-context.js';
import { AnyObject, Nullable, UserBasic } from '../schemas/common-schemas.js';

const REFRESH_DESCRIPTION =
  'true, blocking, force_blocking, async, force_async or lazy_async compute the result now (synchronously, whatever the mode); ' +
  'absent, false or force_cache answer the result computed last, or null';

/** PostHog's insight record; `result` is the trend series for trends, null until computed. */
export const InsightRecord = Type.Object({
  id: Type.Integer(),
  short_id: Type.String({ description: '8 characters [A-Za-z0-9], unique' }),
  name: Nullable(Type.String()),
  derived_name: Nullable(Type.String()),
  query: Type.Unknown({ description: 'The query node as stored (InsightVizNode, DataTableNode, DataVisualizationNode or an insight kind), or null' }),
  filters: AnyObject,
  order: Nullable(Type.Integer()),
  deleted: Type.Boolean(),
  dashboards: Type.Array(Type.Integer()),
  dashboard_tiles: Type.Array(Type.Object({ id: Type.Integer(), dashboard_id: Type.Integer(), deleted: Type.Boolean() })),
  last_refresh: Nullable(Type.String({ format: 'date-time' })),
  result: Type.Unknown({ description: 'Trend series items, or null when not computed' }),
  hasMore: Nullable(Type.Boolean()),
  columns: Type.Null(),
  created_at: Type.String({ format: 'date-time' }),
  created_by: UserBasic,
  description: Type.String(),
  updated_at: Type.String({ format: 'date-time' }),
  tags: Type.Array(Type.String()),
  favorited: Type.Boolean(),
  saved: Type.Boolean(),
  last_modified_at: Type.String({ format: 'date-time' }),
  last_modified_by: UserBasic,
  effective_restriction_level: Type.Integer(),
  effective_privilege_level: Type.Integer(),
  user_access_level: Type.String(),
  timezone: Nullable(Type.String()),
  is_cached: Type.Boolean(),
  query_status: Type.Null(),
  hogql: Type.Null(),
  types: Type.Null(),
  resolved_date_range: Nullable(Type.Object({ date_from: Type.String(), date_to: Type.String() })),
  alerts: Type.Array(Type.Unknown()),
});

const ListParams = Type.Object({ project_id: Type.String() });
const ItemParams = Type.Object({
  project_id: Type.String(),
  id: Type.String({ description: 'The integer id or the 8-character short_id' }),
});

const RefreshQuery = Type.Object({ refresh: Type.Optional(Type.String({ description: REFRESH_DESCRIPTION })) });

const ListQuery = Type.Object({
  limit: Type.Optional(Type.String({ description: 'Page size, default 100, at most 1000' })),
  offset: Type.Optional(Type.String()),
  refresh: Type.Optional(Type.String({ description: REFRESH_DESCRIPTION })),
  short_id: Type.Optional(Type.String()),
  search: Type.Optional(Type.String({ description: 'Case-insensitive substring of name, derived_name or description' })),
  saved: Type.Optional(Type.String({ description: 'true: saved or on a dashboard; false: not saved' })),
  favorited: Type.Optional(Type.String({ description: 'true or false' })),
  dashboards: Type.Optional(Type.String({ description: 'JSON list of dashboard ids the insight is on, every one of them' })),
  created_by: Type.Optional(Type.String({ description: 'JSON list of user ids, any of them' })),
  insight: Type.Optional(Type.String({ description: 'TRENDS, FUNNELS, RETENTION, PATHS, STICKINESS, LIFECYCLE, JSON or SQL' })),
  order: Type.Optional(Type.String({ description: `${INSIGHT_ORDER_COLUMNS.join(', ')}, with "-" for descending; default -last_modified_at` })),
});

const InsightBody = Type.Object(
  {
    name: Type.Optional(Nullable(Type.String())),
    derived_name: Type.Optional(Nullable(Type.String())),
    description: Type.Optional(Nullable(Type.String())),
    query: Type.Optional(Nullable(AnyObject)),
    filters: Type.Optional(Nullable(AnyObject)),
    tags: Type.Optional(Nullable(Type.Array(Type.String()))),
    favorited: Type.Optional(Type.Boolean()),
    saved: Type.Optional(Type.Boolean({ description: 'Default false on create; a PATCH sets it to true unless it says otherwise' })),
    deleted: Type.Optional(Type.Boolean({ description: 'true deletes (soft), false restores' })),
    dashboards: Type.Optional(Nullable(Type.Array(Type.Integer(), { description: 'Ids of the dashboards the insight is on' }))),
  },
  { additionalProperties: true },
);

const InsightList = Type.Object({
  count: Type.Integer(),
  next: Nullable(Type.String()),
  previous: Nullable(Type.String()),
  results: Type.Array(InsightRecord),
});

function fromMcp(request: FastifyRequest): boolean {
  return request.headers['x-posthog-client'] === 'mcp';
}

export async function savedInsightRoutes(app: FastifyInstance, context: AppContext): Promise<void> {
  // The fixed sub-paths (`trend/`, …) are static segments, which the router prefers over `:id`.
  const base = '/api/projects/:project_id/insights';
  const { savedInsights } = context;

  app.get(
    `${base}/`,
    {
      schema: {
        description: 'Saved insights, last modified first',
        params: ListParams,
        querystring: ListQuery,
        response: { 200: InsightList },
      },
      config: { scopes: ['insight:read'] },
    },
    async (request) => {
      const query = request.query as Record<string, unknown>;
      const page = readPage(query, { defaultLimit: 100, maxLimit: 1000 });
      const listQuery = parseInsightListQuery(query);
      const { total, items } = await savedInsights.list(requireProject(request), listQuery, page, refreshRequested(query.refresh));
      return envelope(request, page, total, items.map(serializeInsight));
    },
  );

  app.post(
    `${base}/`,
    {
      schema: { description: 'Saves an insight', params: ListParams, querystring: RefreshQuery, body: InsightBody, response: { 201: InsightRecord } },
      config: { scopes: ['insight:write'] },
    },
    async (request, reply) => {
      const { refresh } = request.query as { refresh?: string };
      const created = await savedInsights.create(requireProject(request), request.apiKey!, request.body, {
        mcp: fromMcp(request),
        refresh: refreshRequested(refresh),
      });
      return reply.status(201).send(serializeInsight(created));
    },
  );

  app.get<{ Params: { id: string } }>(
    `${base}/:id/`,
    {
      schema: { description: 'One saved insight', params: ItemParams, querystring: RefreshQuery, response: { 200: InsightRecord } },
      config: { scopes: ['insight:read'] },
    },
    async (request) => {
      const { refresh } = request.query as { refresh?: string };
      return serializeInsight(await savedInsights.get(requireProject(request), request.params.id, refreshRequested(refresh)));
    },
  );

  app.patch<{ Params: { id: string } }>(
    `${base}/:id/`,
    {
      schema: {
        description: 'Changes a saved insight; {"deleted": true} deletes it (DELETE is not allowed), {"deleted": false} restores it',
        params: ItemParams,
        querystring: RefreshQuery,
        body: InsightBody,
        response: { 200: InsightRecord },
      },
      config: { scopes: ['insight:write'] },
    },
    async (request) => {
      const { refresh } = request.query as { refresh?: string };
      const updated = await savedInsights.update(requireProject(request), request.apiKey!, request.params.id, request.body, {
        mcp: fromMcp(request),
        refresh: refreshRequested(refresh),
      });
      return serializeInsight(updated);
    },
  );
}
