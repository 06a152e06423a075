import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import type { AppContext } from '../../context.js';
import type { ActorList } from '../../insights/actors/actor-list.js';
import { CORRELATION_PAGE_KEYS } from '../../insights/funnels/correlation-actors-service.js';
import { mergeRequestInput, type RawInput } from '../../insights/filter-model.js';
import type { Project } from '../../projects/project.js';
import { actorsLinks, PAGE_KEYS, peopleEnvelope, type PageKeys } from '../actor-envelope.js';
import { responseFormat, sendCsv } from '../flat-csv.js';
import { requireProject } from '../request-context.js';
import { ActorFilters, PeopleEnvelope, RetentionEnvelope } from '../schemas/person-actor-schemas.js';
import { ProjectParams } from '../schemas/person-schemas.js';

/** These endpoints read persons, so they take `person:read`, the scope of PostHog's persons viewset that serves them. */
const CONFIG = { scopes: ['person:read' as const] };

/** What one actors endpoint answers: its envelope as JSON, or the rows its CSV lists. */
interface ActorsAnswer {
  body: PeopleEnvelope | RetentionEnvelope;
  csvRows: unknown[];
}

/** The filter is the legacy insight filter, open and parsed by the endpoint's service. */
type Handler = (request: FastifyRequest, project: Project, input: RawInput) => Promise<ActorsAnswer>;

interface Endpoint {
  description: string;
  filter: { querystring: TSchema; body: TSchema };
  response: TSchema;
}

/** GET with the filter in the query string; POST with it in a JSON body as well (body keys win, but for `properties`). */
function register(app: FastifyInstance, url: string, endpoint: Endpoint, handler: Handler): void {
  const { description, filter, response } = endpoint;
  for (const method of ['GET', 'POST'] as const) {
    app.route({
      method,
      url,
      schema: {
        description,
        params: ProjectParams,
        querystring: filter.querystring,
        ...(method === 'POST' ? { body: filter.body } : {}),
        response: { 200: response },
      },
      config: CONFIG,
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
function peopleAnswer(request: FastifyRequest, list: ActorList, keys: PageKeys = PAGE_KEYS): ActorsAnswer {
  return { body: peopleEnvelope(request, list, keys), csvRows: list.people };
}

function people(description: string, filter: Endpoint['filter']): Endpoint {
  return { description, filter, response: PeopleEnvelope };
}

/**
 * The persons analysis endpoints under `/api/projects/:project_id/persons`, GET and POST each.
 * They are static paths, which the router matches before `/persons/:id`. Schemas and wiring
 * only; the rules live in src/insights.
 */
export async function personActorRoutes(app: FastifyInstance, context: AppContext): Promise<void> {
  const base = '/api/projects/:project_id/persons';
  const { actors } = context;

  const trends = people('The persons behind one data point of a trend (a series, a bucket, a breakdown value)', ActorFilters.trends);
  register(app, `${base}/trends/`, trends, async (request, project, input) => peopleAnswer(request, await actors.trends.actors(project, input)));

  const stickiness = people('The persons active in exactly stickiness_days intervals of a series', ActorFilters.stickiness);
  register(app, `${base}/stickiness/`, stickiness, async (request, project, input) => peopleAnswer(request, await actors.stickiness.actors(project, input)));

  const lifecycle = people('The persons of one lifecycle status in one bucket', ActorFilters.lifecycle);
  register(app, `${base}/lifecycle/`, lifecycle, async (request, project, input) => peopleAnswer(request, await actors.lifecycle.actors(project, input)));

  const retention = {
    description: 'The actors of one retention row, with the intervals each returned in',
    filter: ActorFilters.retention,
    response: RetentionEnvelope,
  };
  register(app, `${base}/retention/`, retention, async (request, project, input) => {
    const list = await actors.retention.actors(project, input);
    const { next } = actorsLinks(request, list.page, list.hasMore);
    return { body: { result: list.result, next, missing_persons: list.missingPersons }, csvRows: list.result };
  });

  const funnel = people('The persons who reached one funnel step, or dropped off before it', ActorFilters.funnel);
  register(app, `${base}/funnel/`, funnel, async (request, project, input) => peopleAnswer(request, await actors.funnel.actors(project, input)));

  const correlation = people('The persons of one funnel correlation row, converted or not', ActorFilters.correlation);
  register(app, `${base}/funnel/correlation/`, correlation, async (request, project, input) =>
    // Its links move its own offset and limit parameters.
    peopleAnswer(request, await actors.correlation.actors(project, input), CORRELATION_PAGE_KEYS),
  );

  const path = people('The persons on one path edge, or whose path ended at one node', ActorFilters.path);
  register(app, `${base}/path/`, path, async (request, project, input) => peopleAnswer(request, await actors.path.actors(project, input)));
}
