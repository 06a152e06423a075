import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { RemoteConfigService } from '../../browser-sdk/remote-config-service.js';

const Params = Type.Object({ token: Type.String({ description: "The project's token (phc_…)" }) });
const NoQuery = Type.Object({});

const Config = Type.Object({
  token: Type.String(),
  supportedCompression: Type.Array(Type.String(), { description: 'Request encodings capture accepts' }),
  hasFeatureFlags: Type.Boolean(),
  captureDeadClicks: Type.Boolean(),
  capturePerformance: Type.Boolean(),
  autocapture_opt_out: Type.Boolean(),
  autocaptureExceptions: Type.Boolean(),
  analytics: Type.Object({ endpoint: Type.String() }),
  elementsChainAsString: Type.Boolean(),
  sessionRecording: Type.Boolean(),
  errorTracking: Type.Object({ autocaptureExceptions: Type.Boolean(), suppressionRules: Type.Array(Type.Unknown()) }),
  heatmaps: Type.Boolean(),
  surveys: Type.Boolean(),
  conversations: Type.Boolean(),
  defaultIdentifiedOnly: Type.Boolean(),
  siteApps: Type.Array(Type.Unknown()),
});

const Script = Type.String({ description: 'Sets window._POSTHOG_REMOTE_CONFIG[token] = {config, siteApps}' });

/** posthog-js's remote config, asked on every page load; public, as the project token is. */
export async function remoteConfigRoutes(app: FastifyInstance, remoteConfig: RemoteConfigService): Promise<void> {
  app.get(
    '/array/:token/config',
    {
      schema: {
        description: 'The remote config of posthog-js for a project token (no authentication)',
        security: [],
        params: Params,
        querystring: NoQuery,
        response: { 200: Config },
      },
    },
    async (request) => remoteConfig.config((request.params as { token: string }).token),
  );

  app.get(
    '/array/:token/config.js',
    {
      schema: {
        description: 'The remote config of posthog-js as a script (no authentication)',
        security: [],
        params: Params,
        querystring: NoQuery,
        response: { 200: { content: { 'application/javascript': { schema: Script } } } },
      },
    },
    async (request, reply) => {
      const script = await remoteConfig.script((request.params as { token: string }).token);
      return reply.type('application/javascript; charset=utf-8').send(script);
    },
  );

  for (const url of ['/array/:token/config', '/array/:token/config.js']) {
    app.options(url, { schema: { hide: true } }, async (_request, reply) => reply.status(204).send());
  }
}
