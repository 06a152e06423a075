import type { FastifyInstance } from 'fastify';
import type { CaptureService } from '../../capture/capture-service.js';
import type { FlagsService } from '../../flags/flags-service.js';
import type { TallyMetrics } from '../../observability/metrics.js';

const BATCH_LIMIT_BYTES = 20 * 1024 * 1024;
const EVENT_LIMIT_BYTES = 2 * 1024 * 1024;

const CAPTURE_PATHS: { path: string; limit: number }[] = [
  { path: '/batch', limit: BATCH_LIMIT_BYTES },
  { path: '/capture', limit: EVENT_LIMIT_BYTES },
  { path: '/e', limit: EVENT_LIMIT_BYTES },
  { path: '/i/v0/e', limit: EVENT_LIMIT_BYTES },
  { path: '/track', limit: EVENT_LIMIT_BYTES },
  { path: '/engage', limit: EVENT_LIMIT_BYTES },
];

/**
 * The SDK-facing ingestion endpoints; every body arrives raw and is decoded by the capture service.
 * Their CORS headers come from allowSdkCors, which runs for every request before routing.
 */
export async function captureRoutes(app: FastifyInstance, capture: CaptureService, flags: FlagsService, metrics: TallyMetrics | null): Promise<void> {
  app.removeAllContentTypeParsers();
  if (metrics) {
    const capturePaths = new Set(CAPTURE_PATHS.map(({ path }) => path));
    app.addHook('onResponse', async (request, reply) => {
      const endpoint = request.routeOptions.url;
      if (endpoint && capturePaths.has(endpoint) && request.method !== 'OPTIONS') metrics.captureAnswered(endpoint, reply.statusCode);
    });
  }
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  for (const { path, limit } of CAPTURE_PATHS) {
    app.route({
      method: ['GET', 'POST'],
      url: path,
      bodyLimit: limit,
      schema: { hide: true },
      handler: async (request, reply) => {
        const query = request.query as Record<string, unknown>;
        const events = await capture.capture({
          body: Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0),
          query,
          contentType: request.headers['content-type'],
          contentEncoding: request.headers['content-encoding'],
          limitBytes: limit,
          ip: request.ip ?? null,
          now: Date.now(),
        });
        metrics?.captured(path, events);
        if (query.beacon === '1') return reply.status(204).send();
        return reply.status(200).send({ status: 1 });
      },
    });
    app.options(path, { schema: { hide: true } }, async (_request, reply) => reply.status(200).send({ status: 1 }));
  }

  // `/flags?v=2` answers in the flags shape; `/decide` and `/flags` without v=2 in the older one.
  for (const path of ['/flags', '/decide']) {
    app.route({
      method: ['GET', 'POST'],
      url: path,
      bodyLimit: EVENT_LIMIT_BYTES,
      schema: { hide: true },
      handler: async (request) => {
        const query = request.query as Record<string, unknown>;
        const shape = path === '/flags' && query.v === '2' ? 'flags' : 'legacy';
        return flags.evaluate(
          {
            body: Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0),
            query,
            contentType: request.headers['content-type'],
            contentEncoding: request.headers['content-encoding'],
            limitBytes: EVENT_LIMIT_BYTES,
          },
          shape,
        );
      },
    });
    app.options(path, { schema: { hide: true } }, async (_request, reply) => reply.status(200).send({ status: 1 }));
  }
}
