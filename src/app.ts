import Fastify, { type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import type { AppContext } from './context.js';
import { apiAuthHook } from './http/auth.js';
import { registerErrorHandling } from './http/error-handler.js';
import { actionRoutes } from './http/routes/actions.js';
import { captureRoutes } from './http/routes/capture.js';
import { cohortRoutes } from './http/routes/cohorts.js';
import { eventDefinitionRoutes } from './http/routes/event-definitions.js';
import { healthRoutes } from './http/routes/health.js';
import { ingestionWarningRoutes } from './http/routes/ingestion-warnings.js';
import { personRoutes } from './http/routes/persons.js';
import { personActorRoutes } from './http/routes/person-actors.js';
import { projectRoutes } from './http/routes/projects.js';
import { trendRoutes } from './http/routes/trends.js';
import { propertyDefinitionRoutes } from './http/routes/property-definitions.js';

/** Largest accepted request body: PostHog's /batch limit. Smaller per-route limits apply elsewhere. */
export const MAX_BODY_BYTES = 20 * 1024 * 1024;

const ENVIRONMENTS_PREFIX = /^\/api\/environments\//;

export interface AppOptions {
  logLevel?: string;
}

/** Builds the HTTP application without listening, so tests and the CLI share it. */
export async function buildApp(context: AppContext, options: AppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: { level: options.logLevel ?? context.config.logLevel },
    bodyLimit: MAX_BODY_BYTES,
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true },
    // PostHog serves every project path under /api/environments/ too; its current clients use both.
    rewriteUrl: (request) => (request.url ?? '/').replace(ENVIRONMENTS_PREFIX, '/api/projects/'),
    trustProxy: true,
    ajv: { customOptions: { coerceTypes: 'array', removeAdditional: false, allErrors: false } },
  });
  registerErrorHandling(app);
  app.decorateRequest('apiKey', null);
  app.decorateRequest('project', null);

  await app.register(swagger, {
    openapi: {
      info: { title: 'Tally API', description: 'PostHog-compatible product analytics API', version: '1' },
      components: { securitySchemes: { PersonalAPIKey: { type: 'http', scheme: 'bearer' } } },
      security: [{ PersonalAPIKey: [] }],
    },
  });

  await app.register(healthRoutes);
  await app.register(async (ingestion) => captureRoutes(ingestion, context.capture, context.flags));
  app.get('/api/schema/', { schema: { hide: true } }, async () => app.swagger());

  await app.register(async (api) => {
    api.addHook('preHandler', apiAuthHook(context.keys, context.projects));
    // Acknowledged captures are processed behind the answer; an API call sees all of them that
    // can be processed, and never fails because processing does.
    api.addHook('preHandler', () => context.ingestion.catchUp());
    await projectRoutes(api, context);
    await trendRoutes(api, context);
    await personRoutes(api, context);
    await personActorRoutes(api, context);
    await eventDefinitionRoutes(api, context);
    await propertyDefinitionRoutes(api, context);
    await actionRoutes(api, context);
    await cohortRoutes(api, context);
    await ingestionWarningRoutes(api, context);
  });

  return app;
}
