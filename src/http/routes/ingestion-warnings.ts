import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../context.js';
import { requireProject } from '../request-context.js';

const Params = Type.Object({ project_id: Type.String() });
const Query = Type.Object({ q: Type.Optional(Type.String({ description: 'Only warnings whose type or details contain this text' })) });

const Warning = Type.Object({
  type: Type.String(),
  timestamp: Type.String({ format: 'date-time' }),
  details: Type.Object({}, { additionalProperties: true }),
});

const WarningSummary = Type.Object({
  type: Type.String({ description: 'e.g. ignored_invalid_timestamp, event_processing_failed, cannot_merge_already_identified' }),
  lastSeen: Type.String({ format: 'date-time' }),
  // Pairs as two-item lists: OpenAPI 3.0 has no tuples.
  sparkline: Type.Array(Type.Array(Type.Union([Type.Integer(), Type.String()]), { minItems: 2, maxItems: 2 }), {
    description: 'Warnings of this type per day: [count, day (YYYY-MM-DD, UTC)]',
  }),
  warnings: Type.Array(Warning, { description: 'The latest 50 warnings of this type' }),
  count: Type.Integer(),
});

const Response = Type.Object({ results: Type.Array(WarningSummary) });

export async function ingestionWarningRoutes(app: FastifyInstance, context: AppContext): Promise<void> {
  app.get(
    '/api/projects/:project_id/ingestion_warnings/',
    {
      schema: {
        description: "What ingestion worked around in the project's events over the last 30 days, by type, newest type first",
        params: Params,
        querystring: Query,
        response: { 200: Response },
      },
      config: { scopes: ['project:read'] },
    },
    async (request) => {
      const { q } = request.query as { q?: string };
      return { results: await context.ingestionWarningService.list(requireProject(request), q ?? null) };
    },
  );
}
