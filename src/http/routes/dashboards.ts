import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../context.js';
import { serializeDashboard, serializeDashboardBasic } from '../../dashboards/dashboard-serializer.js';
import { refreshRequested } from '../../saved-insights/insight-results.js';
import { envelope, readPage } from '../pagination.js';
import { requireProject } from '../request-context.js';
import { itemId } from './item-id.js';
import { AnyObject, Nullable, UserBasic } from '../schemas/common-schemas.js';
import { InsightRecord } from './saved-insights.js';

const ListParams = Type.Object({ project_id: Type.String() });
const ItemParams = Type.Object({ project_id: Type.String(), id: Type.String() });
const ListQuery = Type.Object({
  limit: Type.Optional(Type.String({ description: 'Page size, default 100, at most 1000' })),
  offset: Type.Optional(Type.String()),
});
const RefreshQuery = Type.Object({
  refresh: Type.Optional(Type.String({ description: 'A computing mode (true, blocking, force_blocking, …) computes every insight tile now' })),
});

const DashboardFields = {
  id: Type.Integer(),
  name: Nullable(Type.String()),
  description: Type.String(),
  pinned: Type.Boolean(),
  created_at: Type.String({ format: 'date-time' }),
  created_by: UserBasic,
  last_accessed_at: Nullable(Type.String({ format: 'date-time' })),
  is_shared: Type.Boolean(),
  deleted: Type.Boolean(),
  creation_mode: Type.String(),
  filters: AnyObject,
  variables: AnyObject,
  tags: Type.Array(Type.String()),
  restriction_level: Type.Integer(),
  effective_restriction_level: Type.Integer(),
  effective_privilege_level: Type.Integer(),
  last_refresh: Nullable(Type.String({ format: 'date-time' })),
  team_id: Type.Integer(),
};

const DashboardBasic = Type.Object(DashboardFields);

const DashboardRecord = Type.Object({
  ...DashboardFields,
  tiles: Type.Array(
    Type.Object({
      id: Type.Integer(),
      insight: Nullable(InsightRecord),
      text: Nullable(Type.Object({ id: Type.Integer(), body: Nullable(Type.String()) })),
      color: Nullable(Type.String()),
      layouts: AnyObject,
      order: Type.Integer(),
      last_refresh: Nullable(Type.String({ format: 'date-time' })),
      is_cached: Type.Boolean(),
    }),
  ),
});

const DashboardList = Type.Object({
  count: Type.Integer(),
  next: Nullable(Type.String()),
  previous: Nullable(Type.String()),
  results: Type.Array(DashboardBasic),
});

const TileChange = Type.Object(
  {
    id: Type.Optional(Type.Integer({ description: 'The tile to change; absent adds a text tile' })),
    text: Type.Optional(Nullable(Type.Object({ body: Nullable(Type.String()) }, { additionalProperties: true }))),
    color: Type.Optional(Nullable(Type.String())),
    layouts: Type.Optional(AnyObject),
    deleted: Type.Optional(Type.Boolean({ description: 'true removes the tile (its insight stays)' })),
  },
  { additionalProperties: true },
);

const DashboardBody = Type.Object(
  {
    name: Type.Optional(Nullable(Type.String())),
    description: Type.Optional(Nullable(Type.String())),
    pinned: Type.Optional(Type.Boolean()),
    tags: Type.Optional(Nullable(Type.Array(Type.String()))),
    filters: Type.Optional(Nullable(AnyObject)),
    variables: Type.Optional(Nullable(AnyObject)),
    deleted: Type.Optional(Type.Boolean({ description: 'true deletes (soft, with its tiles), false restores' })),
    restriction_level: Type.Optional(Type.Integer({ description: 'Always 21: Tally has no access control' })),
    tiles: Type.Optional(Nullable(Type.Array(TileChange))),
  },
  { additionalProperties: true },
);

export async function dashboardRoutes(app: FastifyInstance, context: AppContext): Promise<void> {
  const base = '/api/projects/:project_id/dashboards';
  const { dashboards } = context;

  app.get(
    `${base}/`,
    {
      schema: { description: 'Dashboards, pinned first, then by name', params: ListParams, querystring: ListQuery, response: { 200: DashboardList } },
      config: { scopes: ['dashboard:read'] },
    },
    async (request) => {
      const page = readPage(request.query as Record<string, unknown>, { defaultLimit: 100, maxLimit: 1000 });
      const { total, dashboards: listed } = await dashboards.list(requireProject(request), page);
      return envelope(request, page, total, listed.map(serializeDashboardBasic));
    },
  );

  app.post(
    `${base}/`,
    {
      schema: { description: 'Creates a dashboard', params: ListParams, querystring: RefreshQuery, body: DashboardBody, response: { 201: DashboardRecord } },
      config: { scopes: ['dashboard:write'] },
    },
    async (request, reply) => {
      const { refresh } = request.query as { refresh?: string };
      const created = await dashboards.create(requireProject(request), request.apiKey!, request.body, refreshRequested(refresh));
      return reply.status(201).send(serializeDashboard(created));
    },
  );

  app.get<{ Params: { id: string } }>(
    `${base}/:id/`,
    {
      schema: { description: 'One dashboard with its tiles', params: ItemParams, querystring: RefreshQuery, response: { 200: DashboardRecord } },
      config: { scopes: ['dashboard:read'] },
    },
    async (request) => {
      const { refresh } = request.query as { refresh?: string };
      const refreshing = refreshRequested(refresh);
      return serializeDashboard(await dashboards.get(requireProject(request), itemId(request.params.id), refreshing));
    },
  );

  app.patch<{ Params: { id: string } }>(
    `${base}/:id/`,
    {
      schema: {
        description:
          'Changes a dashboard; tiles: [{text: {body}}] adds a text tile, [{id, deleted: true}] removes a tile, color and layouts change; ' +
          '{"deleted": true} deletes the dashboard (DELETE is not allowed)',
        params: ItemParams,
        querystring: RefreshQuery,
        body: DashboardBody,
        response: { 200: DashboardRecord },
      },
      config: { scopes: ['dashboard:write'] },
    },
    async (request) => {
      const { refresh } = request.query as { refresh?: string };
      const refreshing = refreshRequested(refresh);
      const updated = await dashboards.update(requireProject(request), request.apiKey!, itemId(request.params.id), request.body, refreshing);
      return serializeDashboard(updated);
    },
  );
}
