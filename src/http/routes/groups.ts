import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../context.js';
import { encodeGroupCursor } from '../../groups/group-cursor.js';
import { readGroupKey, readGroupListFilter, readGroupTypeIndex } from '../../groups/group-query.js';
import { serializeGroup, serializeGroupType } from '../../groups/group-serializer.js';
import type { GroupCursor } from '../../groups/group.js';
import { requireProject } from '../request-context.js';

const Params = Type.Object({ project_id: Type.String() });

const GroupTypeIndex = Type.String({ description: 'The group type, 0–4 (see groups_types)' });

const ListQuery = Type.Object({
  group_type_index: Type.Optional(GroupTypeIndex),
  search: Type.Optional(Type.String({ description: 'Case-insensitive substring of the key or of the name property' })),
  group_key: Type.Optional(Type.String({ description: 'Case-insensitive substring of the key' })),
  cursor: Type.Optional(Type.String({ description: 'Set by next links' })),
});

const FindQuery = Type.Object({
  group_type_index: Type.Optional(GroupTypeIndex),
  group_key: Type.Optional(Type.String({ description: 'The exact key' })),
});

const Group = Type.Object({
  group_type_index: Type.Integer(),
  group_key: Type.String(),
  group_properties: Type.Object({}, { additionalProperties: true }),
  created_at: Type.String({ format: 'date-time', description: 'When the first $groupidentify named the group' }),
});

const ListResponse = Type.Object({
  next: Type.Union([Type.String(), Type.Null()]),
  previous: Type.Null(),
  results: Type.Array(Group),
});

const Nothing = Type.Null({ description: 'Tally keeps no such setting' });

const GroupType = Type.Object({
  group_type: Type.String(),
  group_type_index: Type.Integer(),
  name_singular: Nothing,
  name_plural: Nothing,
  detail_dashboard: Nothing,
  default_columns: Nothing,
  created_at: Nothing,
});

/** The request's own absolute URL continuing after `cursor`. */
function nextUrl(request: FastifyRequest, cursor: GroupCursor): string {
  const url = new URL(request.originalUrl, `${request.protocol}://${request.host}`);
  url.searchParams.set('cursor', encodeGroupCursor(cursor));
  return url.toString();
}

export async function groupRoutes(app: FastifyInstance, context: AppContext): Promise<void> {
  app.get(
    '/api/projects/:project_id/groups/',
    {
      schema: {
        description: 'The groups of one type, newest first, 100 a page',
        params: Params,
        querystring: ListQuery,
        response: { 200: ListResponse },
      },
      config: { scopes: ['group:read'] },
    },
    async (request) => {
      const filter = readGroupListFilter(request.query as Record<string, unknown>);
      const page = await context.groups.list(requireProject(request), filter);
      return { next: page.next && nextUrl(request, page.next), previous: null, results: page.groups.map(serializeGroup) };
    },
  );

  app.get(
    '/api/projects/:project_id/groups/find/',
    {
      schema: { description: 'One group by type and exact key', params: Params, querystring: FindQuery, response: { 200: Group } },
      config: { scopes: ['group:read'] },
    },
    async (request) => {
      const query = request.query as Record<string, unknown>;
      const groupTypeIndex = readGroupTypeIndex(query);
      return serializeGroup(await context.groups.find(requireProject(request), groupTypeIndex, readGroupKey(query)));
    },
  );

  app.get(
    '/api/projects/:project_id/groups_types/',
    {
      schema: { description: "The project's group types, by index", params: Params, response: { 200: Type.Array(GroupType) } },
      config: { scopes: ['group:read'] },
    },
    async (request) => (await context.groups.types(requireProject(request))).map(serializeGroupType),
  );
}
