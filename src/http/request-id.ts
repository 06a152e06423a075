import { randomUUID } from 'node:crypto';
import type { FastifyInstance, RawRequestDefaultExpression } from 'fastify';

/** The header a proxy may send a request id in, and the answer carries it back in. */
export const REQUEST_ID_HEADER = 'x-request-id';

/** An id a proxy sent that is short and plain enough to log as it is. */
const PLAIN_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The id every log line of a request carries: the proxy's (`X-Request-Id`) when it sent a
 * plain one, so one id follows a request through the proxy's logs and Tally's; a new UUID
 * otherwise, as a hostile or oversized header must not reach the logs.
 */
export function requestIdOf(request: RawRequestDefaultExpression): string {
  const sent = request.headers[REQUEST_ID_HEADER];
  return typeof sent === 'string' && PLAIN_ID.test(sent) ? sent : randomUUID();
}

/** Answers every request with its id, so a client can quote it when it reports a problem. */
export function echoRequestIds(app: FastifyInstance): void {
  app.addHook('onRequest', async (request, reply) => {
    reply.header(REQUEST_ID_HEADER, request.id);
  });
}
