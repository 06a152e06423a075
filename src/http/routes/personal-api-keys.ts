import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../context.js';
import { serializeKey } from '../../keys/key-serializer.js';

const NoQuery = Type.Object({});
const ItemParams = Type.Object({ id: Type.String({ description: "The key's id, or `@current` for the calling key" }) });

const Key = Type.Object({
  id: Type.String(),
  label: Type.String(),
  value: Type.Union([Type.String(), Type.Null()], { description: 'The key itself, only in the answer that created it' }),
  mask_value: Type.String({ description: 'phx_...<last 4 characters>' }),
  created_at: Type.String({ format: 'date-time' }),
  last_used_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  user_id: Type.Integer(),
  scopes: Type.Array(Type.String()),
  scoped_teams: Type.Array(Type.Integer(), { description: 'The projects the key is limited to; empty for all' }),
  scoped_organizations: Type.Array(Type.String(), { description: 'The organizations the key is limited to; empty for all' }),
  last_rolled_at: Type.Null(),
});

/**
 * One schema type list instead of a union: type coercion would turn a null tried against the
 * list branch into [0], and a union names the wrong branch when an item is bad.
 */
function nullableList<T>(item: 'integer' | 'string', description: string) {
  return Type.Unsafe<T[] | null>({ type: ['array', 'null'], items: { type: item }, description });
}

const NewKey = Type.Object(
  {
    label: Type.String({ description: 'Up to 40 characters' }),
    scopes: Type.Array(Type.String(), { description: '`*`, or `object:read` / `object:write` (write implies read)' }),
    scoped_teams: Type.Optional(nullableList<number>('integer', 'Projects of your organization; empty or null for all')),
    scoped_organizations: Type.Optional(nullableList<string>('string', 'Your organization; empty or null for all')),
  },
  { additionalProperties: true },
);

interface NewKeyBody {
  label: string;
  scopes: string[];
  scoped_teams?: number[] | null;
  scoped_organizations?: string[] | null;
}

const MANAGING_KEY = 'Only a key with scope `*` that is not limited to projects may list, create or delete keys.';

/**
 * Personal API keys: any key reads itself; a key with scope `*` and no project limits manages
 * its user's keys.
 */
export async function personalApiKeyRoutes(app: FastifyInstance, context: AppContext): Promise<void> {
  const config = { allowProjectScopedKeys: true };

  app.get(
    '/api/personal_api_keys/',
    {
      schema: { description: `Your keys, newest first. ${MANAGING_KEY}`, querystring: NoQuery, response: { 200: Type.Array(Key) } },
      config,
    },
    async (request) => (await context.personalApiKeys.list(request.apiKey!)).map((key) => serializeKey(key)),
  );

  app.post<{ Body: NewKeyBody }>(
    '/api/personal_api_keys/',
    {
      schema: {
        description: `Creates a key; its value is in this answer only. ${MANAGING_KEY}`,
        querystring: NoQuery,
        body: NewKey,
        response: { 201: Key },
      },
      config,
    },
    async (request, reply) => {
      const { record, value } = await context.personalApiKeys.create(request.apiKey!, {
        label: request.body.label,
        scopes: request.body.scopes,
        scopedTeams: request.body.scoped_teams ?? null,
        scopedOrganizations: request.body.scoped_organizations ?? null,
      });
      return reply.status(201).send(serializeKey(record, value));
    },
  );

  app.get<{ Params: { id: string } }>(
    '/api/personal_api_keys/:id/',
    {
      schema: {
        description: 'The calling key (`@current` or its id) needs no scope; other keys of your user need a managing key',
        params: ItemParams,
        querystring: NoQuery,
        response: { 200: Key },
      },
      config,
    },
    async (request) => serializeKey(await context.personalApiKeys.retrieve(request.apiKey!, request.params.id)),
  );

  app.delete<{ Params: { id: string } }>(
    '/api/personal_api_keys/:id/',
    {
      schema: {
        description: `Deletes a key of your user; it stops authenticating at once. ${MANAGING_KEY}`,
        params: ItemParams,
        querystring: NoQuery,
        response: { 204: Type.Null({ description: 'Deleted' }) },
      },
      config,
    },
    async (request, reply) => {
      await context.personalApiKeys.delete(request.apiKey!, request.params.id);
      return reply.status(204).send();
    },
  );
}
