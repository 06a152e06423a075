import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { serializeUser } from '../../accounts/user-serializer.js';
import type { AppContext } from '../../context.js';
import { Organization, OrganizationBasic, ProjectBasic } from './organizations.js';

const Params = Type.Object({ id: Type.String({ description: '`@me`; any other user is refused' }) });

const User = Type.Object({
  id: Type.Integer(),
  uuid: Type.String({ format: 'uuid' }),
  distinct_id: Type.String(),
  first_name: Type.String(),
  last_name: Type.String(),
  email: Type.String(),
  date_joined: Type.String({ format: 'date-time' }),
  is_staff: Type.Boolean(),
  is_email_verified: Type.Boolean(),
  has_password: Type.Boolean(),
  is_2fa_enabled: Type.Boolean(),
  team: Type.Union([ProjectBasic, Type.Null()], { description: 'The project /api/projects/@current/ answers for this key' }),
  organization: Organization,
  organizations: Type.Array(OrganizationBasic),
});

/** The key's user. Keys limited to projects may ask too, as in PostHog, where clients check a key with it. */
export async function userRoutes(app: FastifyInstance, context: AppContext): Promise<void> {
  app.get<{ Params: { id: string } }>(
    '/api/users/:id/',
    {
      schema: { params: Params, querystring: Type.Object({}), response: { 200: User } },
      config: { scopes: ['user:read'], allowProjectScopedKeys: true },
    },
    async (request) => serializeUser(await context.users.retrieve(request.apiKey!, request.params.id)),
  );
}
