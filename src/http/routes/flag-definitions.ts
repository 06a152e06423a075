import crypto from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../context.js';

const Query = Type.Object({
  token: Type.Optional(Type.String({ description: "The project's token (phc_…)" })),
  send_cohorts: Type.Optional(Type.String({ description: 'Accepted; cohort definitions are always sent' })),
});

const Definitions = Type.Object({
  flags: Type.Array(Type.Unknown(), { description: 'Always empty: Tally has no feature flags' }),
  group_type_mapping: Type.Record(Type.String(), Type.String(), { description: 'Group type index → group type' }),
  cohorts: Type.Record(Type.String(), Type.Unknown()),
});

const BEARER = /^Bearer\s+(\S+)\s*$/;

/**
 * Flag definitions for the server SDKs' local evaluation: `/flags/definitions` (posthog-node 5,
 * which polls it every 30 s with If-None-Match) and `/api/feature_flag/local_evaluation` (older
 * server SDKs). A personal API key with `feature_flag:read` in the Authorization header.
 */
export async function flagDefinitionRoutes(app: FastifyInstance, context: AppContext): Promise<void> {
  // Group types come from captured events: every acknowledged one is processed before answering.
  app.addHook('preHandler', () => context.ingestion.catchUp());
  for (const url of ['/flags/definitions', '/api/feature_flag/local_evaluation']) {
    app.get(
      url,
      {
        schema: {
          description: "The project's feature flags for local evaluation in server SDKs (none in Tally)",
          querystring: Query,
          response: { 200: Definitions, 304: Type.Null({ description: 'Unchanged since the ETag of If-None-Match' }) },
        },
      },
      async (request, reply) => {
        const { token } = request.query as { token?: string };
        const authorization = request.headers.authorization;
        const personalApiKey = typeof authorization === 'string' ? (BEARER.exec(authorization)?.[1] ?? null) : null;
        const body = await context.flagDefinitions.definitions({ token, personalApiKey });
        const etag = `"${crypto.createHash('sha256').update(JSON.stringify(body)).digest('base64url').slice(0, 32)}"`;
        void reply.header('ETag', etag);
        if (request.headers['if-none-match'] === etag) return reply.status(304).send();
        return body;
      },
    );
  }
}
