import type { FastifyInstance } from 'fastify';

export async function healthRoutes(app: FastifyInstance): Promise<void> {
  app.get('/_health', { schema: { hide: true } }, async () => ({ status: 'ok' }));
}
