import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../context.js';
import type { ActorList } from '../../insights/actors/actor-list.js';
import { CORRELATION_PAGE_KEYS } from '../../insights/funnels/correlation-actors-service.js';
import { mergeRequestInput, type RawInput } from '../../insights/filter-model.js';
import type { Project } from '../../projects/project.js';
import { actorsLinks, PAGE_KEYS, peopleEnvelope, type PageKeys } from '../actor-envelope.js';
import { responseFormat, sendCsv } from '../flat-csv.js';
import { requireProject } from '../request-context.js';

const ProjectParams = Type.Object({ project_id: Type.String() });

/**
 * The contract lists no scope for these rows; they read persons, so they need `person:read`,
 * the scope of PostHog's persons viewset (DECISIONS.md).
 */
const OPTIONS = { schema: { params: ProjectParams }, config: { scopes: ['person:read' as const] } };

type Handler = (request: FastifyRequest, project: Project, input: RawInput) => Promise<{ body: object; csvRows: unknown[] }>;

function register(app: FastifyInstance, methods: Array<'GET' | 'POST'>, url: string, handler: Handler): void {
  for (const method of methods) {
    app.route({
      method,
      url,
      ...OPTIONS,
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        const format = responseFormat(request);
        const input = mergeRequestInput(request.query as RawInput, request.body);
        const { body, csvRows } = await handler(request, requireProject(request), input);
        return format === 'csv' ? sendCsv(reply, csvRows) : body;
      },
    });
  }
}

/** The people of an actors answer in PostHog's envelope; CSV lists them. */
function peopleAnswer(request: FastifyRequest, list: ActorList, keys: PageKeys = PAGE_KEYS) {
  return { body: peopleEnvelope(request, list, keys), csvRows: list.people };
}

/**
 * The persons analysis endpoints under `/api/projects/:project_id/persons`, GET and POST each.
 * They are static paths, which the router matches before `/persons/:id`. Schemas and wiring
 * only; the rules live in src/insights.
 */
export async function personActorRoutes(app: FastifyInstance, context: AppContext): Promise<void> {
  const base = '/api/projects/:project_id/persons';
  const { actors } = context;
  const both: Array<'GET' | 'POST'> = ['GET', 'POST'];

  register(app, both, `${base}/trends/`, async (request, project, input) => peopleAnswer(request, await actors.trends.actors(project, input)));
  register(app, both, `${base}/stickiness/`, async (request, project, input) =>
    peopleAnswer(request, await actors.stickiness.actors(project, input)),
  );
  register(app, both, `${base}/lifecycle/`, async (request, project, input) =>
    peopleAnswer(request, await actors.lifecycle.actors(project, input)),
  );
  register(app, both, `${base}/retention/`, async (request, project, input) => {
    const list = await actors.retention.actors(project, input);
    // Retention's own envelope: singular `result`, rows of person and appearances.
    const { next } = actorsLinks(request, list.page, list.hasMore);
    return { body: { result: list.result, next, missing_persons: list.missingPersons }, csvRows: list.result };
  });
  register(app, both, `${base}/funnel/`, async (request, project, input) => peopleAnswer(request, await actors.funnel.actors(project, input)));
  register(app, both, `${base}/funnel/correlation/`, async (request, project, input) =>
    // Its links move its own offset and limit parameters.
    peopleAnswer(request, await actors.correlation.actors(project, input), CORRELATION_PAGE_KEYS),
  );
  register(app, both, `${base}/path/`, async (request, project, input) => peopleAnswer(request, await actors.path.actors(project, input)));
}
