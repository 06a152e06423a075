import type { FastifyInstance } from 'fastify';
import type { IngestionHealth } from '../../capture/ingestion-health.js';
import { HealthBody, IngestionHealthBody } from '../schemas/health-schemas.js';

/**
 * The load balancer's and the monitor's checks. `/_health` answers `{"status":"ok"}` while the
 * server takes API calls and ingestion moves, and 503 with ingestion's numbers when events wait
 * and ingestion has processed none for the stall limit (capture still answers 200 then: the
 * events are durable and wait for the stores). `/_health/ingestion` always gives the numbers,
 * with the same status. A capture log that cannot be read (the catalog is down) is a 503 too.
 */
export async function healthRoutes(app: FastifyInstance, health: IngestionHealth): Promise<void> {
  app.get('/_health', { schema: { hide: true, response: { 200: HealthBody, 503: HealthBody } } }, async (request, reply) => {
    const ingestion = await health.check().catch((error: unknown) => {
      request.log.error({ err: error }, 'the health check could not read the capture log');
      return null;
    });
    if (ingestion === null) return reply.status(503).send({ status: 'store_unavailable' });
    return ingestion.failing ? reply.status(503).send({ status: 'ingestion_stalled', ingestion }) : { status: 'ok' };
  });
  app.get('/_health/ingestion', { schema: { hide: true, response: { 200: IngestionHealthBody, 503: IngestionHealthBody } } }, async (_request, reply) => {
    const ingestion = await health.check();
    return reply.status(ingestion.failing ? 503 : 200).send(ingestion);
  });
}
