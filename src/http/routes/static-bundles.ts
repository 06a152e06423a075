import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { SdkBundles } from '../../browser-sdk/sdk-bundles.js';
import { NotFound } from '../../errors.js';

const FileParams = Type.Object({ file: Type.String({ description: 'A posthog-js bundle: array.js, surveys.js, web-vitals.js, …' }) });
const VersionedParams = Type.Object({
  version: Type.String({ description: "The asking SDK's version; the bundle is the installed posthog-js's" }),
  file: Type.String({ description: 'A posthog-js bundle: array.js, surveys.js, web-vitals.js, …' }),
});
const Query = Type.Object({
  v: Type.Optional(Type.String({ description: 'The asking SDK version (posthog-js adds it to bust caches)' })),
});
const Script = Type.String({ description: 'The bundle of the installed posthog-js' });
const response = {
  200: { content: { 'application/javascript': { schema: Script } } },
  304: Type.Null({ description: 'The bundle matches If-None-Match' }),
};

/**
 * A year for a path that names the installed version; an hour where the bundle may change: the
 * unversioned path, and another version's, which the next Tally may serve closer to it.
 */
const VERSIONED_CACHE = 'public, max-age=31536000, immutable';
const UNVERSIONED_CACHE = 'public, max-age=3600';

function acceptsGzip(request: FastifyRequest): boolean {
  const accepted = request.headers['accept-encoding'];
  return typeof accepted === 'string' && /\bgzip\b/.test(accepted);
}

/** The bundles posthog-js loads from its api_host, from the posthog-js package Tally ships. */
export async function staticBundleRoutes(app: FastifyInstance, bundles: SdkBundles): Promise<void> {
  async function serve(request: FastifyRequest, reply: FastifyReply, file: string, version?: string) {
    const bundle = await bundles.find(file, version);
    if (!bundle) throw new NotFound();
    void reply
      .header('Cache-Control', version === bundles.version ? VERSIONED_CACHE : UNVERSIONED_CACHE)
      .header('ETag', bundle.etag)
      .type('application/javascript; charset=utf-8');
    if (request.headers['if-none-match'] === bundle.etag) return reply.status(304).send();
    if (!acceptsGzip(request)) return reply.send(bundle.body);
    return reply.header('Content-Encoding', 'gzip').send(bundle.gzipped);
  }

  app.get(
    '/static/:file',
    {
      schema: {
        description: 'A posthog-js bundle of the version Tally ships (no authentication)',
        security: [],
        params: FileParams,
        querystring: Query,
        response,
      },
    },
    async (request, reply) => serve(request, reply, (request.params as { file: string }).file),
  );

  app.get(
    '/static/:version/:file',
    {
      schema: {
        description: 'A posthog-js bundle, cached for a year at the installed version (no authentication)',
        security: [],
        params: VersionedParams,
        querystring: Query,
        response,
      },
    },
    async (request, reply) => {
      const { version, file } = request.params as { version: string; file: string };
      return serve(request, reply, file, version);
    },
  );

  for (const url of ['/static/:file', '/static/:version/:file']) {
    app.options(url, { schema: { hide: true } }, async (_request, reply) => reply.status(204).send());
  }
}
