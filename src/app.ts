import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import type { AppContext } from './context.js';
import { apiAuthHook } from './http/auth.js';
import { registerErrorHandling } from './http/error-handler.js';
import { echoRequestIds, requestIdOf } from './http/request-id.js';
import { actionRoutes } from './http/routes/actions.js';
import { captureRoutes } from './http/routes/capture.js';
import { flagDefinitionRoutes } from './http/routes/flag-definitions.js';
import { remoteConfigRoutes } from './http/routes/remote-config.js';
import { allowSdkCors } from './http/routes/sdk-cors.js';
import { staticBundleRoutes } from './http/routes/static-bundles.js';
import { cohortRoutes } from './http/routes/cohorts.js';
import { eventDefinitionRoutes } from './http/routes/event-definitions.js';
import { healthRoutes } from './http/routes/health.js';
import type { TallyMetrics } from './observability/metrics.js';
import { ingestionWarningRoutes } from './http/routes/ingestion-warnings.js';
import { personRoutes } from './http/routes/persons.js';
import { personActorRoutes } from './http/routes/person-actors.js';
import { projectRoutes } from './http/routes/projects.js';
import { personalApiKeyRoutes } from './http/routes/personal-api-keys.js';
import { userRoutes } from './http/routes/users.js';
import { organizationRoutes } from './http/routes/organizations.js';
import { trendRoutes } from './http/routes/trends.js';
import { funnelInsightRoutes } from './http/routes/funnel-insights.js';
import { retentionInsightRoutes } from './http/routes/retention-insights.js';
import { pathInsightRoutes } from './http/routes/path-insights.js';
import { savedInsightRoutes } from './http/routes/saved-insights.js';
import { dashboardRoutes } from './http/routes/dashboards.js';
import { annotationRoutes } from './http/routes/annotations.js';
import { propertyDefinitionRoutes } from './http/routes/property-definitions.js';
import { eventRoutes } from './http/routes/events.js';
import { groupRoutes } from './http/routes/groups.js';
import { queryRoutes } from './http/routes/query.js';
import { backupRoutes, SERVER_TOKEN_HEADER } from './http/routes/backup.js';

/** Largest accepted request body: PostHog's /batch limit. Smaller per-route limits apply elsewhere. */
export const MAX_BODY_BYTES = 20 * 1024 * 1024;

const ENVIRONMENTS_PREFIX = /^\/api\/environments\//;

export interface AppOptions {
  logLevel?: string;
  /** The token of the server file, which authorises `POST /api/backup/`; without it, no call is. */
  serverToken?: string | null;
  /** Where requests are counted and timed, when the server serves metrics. */
  metrics?: TallyMetrics;
}

/** Builds the HTTP application without listening, so tests and the CLI share it. */
export async function buildApp(context: AppContext, options: AppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: (options.logLevel ? context.logger.child({}, { level: options.logLevel }) : context.logger) as FastifyBaseLogger,
    bodyLimit: MAX_BODY_BYTES,
    // Path parameters as long as a request line can be, so handlers judge them (a 400 or 404 with
    // PostHog's body) instead of the router's bare 414 past 100 characters.
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, maxParamLength: 16384 },
    // PostHog serves every project path under /api/environments/ too; its current clients use both.
    rewriteUrl: (request) => (request.url ?? '/').replace(ENVIRONMENTS_PREFIX, '/api/projects/'),
    trustProxy: true,
    genReqId: requestIdOf,
    logController: new LogController({ requestIdLogLabel: 'requestId' }),
    ajv: { customOptions: { coerceTypes: 'array', removeAdditional: false, allErrors: false } },
  });
  registerErrorHandling(app);
  echoRequestIds(app);
  const metrics = options.metrics ?? null;
  if (metrics) {
    app.addHook('onResponse', async (request, reply) => {
      metrics.requestAnswered(request.method, request.routeOptions.url ?? null, reply.statusCode, reply.elapsedTime / 1000);
    });
  }
  app.decorateRequest('apiKey', null);
  app.decorateRequest('project', null);

  await app.register(swagger, {
    openapi: {
      info: { title: 'Tally API', description: 'PostHog-compatible product analytics API', version: '1' },
      components: {
        securitySchemes: {
          PersonalAPIKey: { type: 'http', scheme: 'bearer' },
          ServerToken: { type: 'apiKey', in: 'header', name: SERVER_TOKEN_HEADER },
        },
      },
      security: [{ PersonalAPIKey: [] }],
    },
  });

  await app.register(async (health) => healthRoutes(health, context.ingestionHealth));
  // At the root, so 404s and 405s of the SDK's paths carry CORS as well.
  app.addHook('onRequest', async (request, reply) => allowSdkCors(request, reply));
  await app.register(async (ingestion) => captureRoutes(ingestion, context.capture, context.flags, metrics));
  await app.register(async (sdk) => remoteConfigRoutes(sdk, context.remoteConfig));
  await app.register(async (sdk) => staticBundleRoutes(sdk, context.sdkBundles));
  await app.register(async (sdk) => flagDefinitionRoutes(sdk, context));
  app.get('/api/schema/', { schema: { hide: true } }, async () => app.swagger());
  // Not a personal-API-key route, and it must not wait for ingestion (it pauses it).
  await app.register(async (operations) => backupRoutes(operations, context.backup, options.serverToken ?? null));

  await app.register(async (api) => {
    // Before validation, as PostHog authenticates before it reads a body: no key is a 401 whatever is sent.
    api.addHook('preValidation', apiAuthHook(context.keys, context.projects));
    // Acknowledged captures are processed behind the answer; an API call sees all of them that
    // can be processed, and never fails because processing does.
    api.addHook('preHandler', () => context.ingestion.catchUp());
    await projectRoutes(api, context);
    await trendRoutes(api, context);
    await funnelInsightRoutes(api, context);
    await retentionInsightRoutes(api, context);
    await pathInsightRoutes(api, context);
    await savedInsightRoutes(api, context);
    await dashboardRoutes(api, context);
    await annotationRoutes(api, context);
    await personRoutes(api, context);
    await personActorRoutes(api, context);
    await eventDefinitionRoutes(api, context);
    await propertyDefinitionRoutes(api, context);
    await actionRoutes(api, context);
    await cohortRoutes(api, context);
    await ingestionWarningRoutes(api, context);
    await eventRoutes(api, context);
    await groupRoutes(api, context);
    await queryRoutes(api, context);
    await personalApiKeyRoutes(api, context);
    await userRoutes(api, context);
    await organizationRoutes(api, context);
  });

  return app;
}
