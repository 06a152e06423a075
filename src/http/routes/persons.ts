import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { serializeCohort } from '../../cohorts/cohort-serializer.js';
import type { AppContext } from '../../context.js';
import { stringParam, type RawQuery } from '../../definitions/query-params.js';
import { ApiError } from '../../errors.js';
import type { Scope } from '../../keys/scopes.js';
import { readDeletionStatusQuery } from '../../persons/deletion-status.js';
import { parsePersonKey } from '../../persons/person-id.js';
import { readPersonListFilter } from '../../persons/person-list-filter.js';
import {
  readDeleteEvents,
  readPropertiesPatch,
  readPropertyUpdate,
  readSplitRequest,
  readUnsetKey,
} from '../../persons/person-write-input.js';
import type { Actor } from '../../persons/person-write-service.js';
import { responseFormat, sendCsv, type ResponseFormat } from '../flat-csv.js';
import { numberedEnvelope, readNumberedPage } from '../page-number-pagination.js';
import { envelope, readPage } from '../pagination.js';
import { requireProject } from '../request-context.js';

const ProjectParams = Type.Object({ project_id: Type.String() });
const PersonParams = Type.Object({ project_id: Type.String(), id: Type.String() });

const PERSON_PAGE = { defaultLimit: 100, maxLimit: 1000 };
const ACTIVITY_PAGE = { defaultLimit: 10, maxLimit: 1000 };
const DELETION_STATUS_PAGE = { defaultLimit: 100, maxLimit: 1000 };

const CREATE_NOT_ALLOWED =
  'Creating persons via this API is not allowed. Please create persons by sending an $identify event. See https://posthog.com/docs/product-analytics/identify for details.';

function routeOptions(scopes: Scope[], withPersonId = true) {
  return { schema: { params: withPersonId ? PersonParams : ProjectParams }, config: { scopes } };
}

function actorOf(request: FastifyRequest): Actor {
  return { userId: request.apiKey!.user.id };
}

function personKeyOf(request: FastifyRequest) {
  return parsePersonKey((request.params as { id: string }).id);
}

/** JSON as is; CSV of the body's `results` when it has them, else of the body as one row. */
function answer(reply: FastifyReply, format: ResponseFormat, body: unknown): unknown {
  if (format === 'json') return body;
  const results = (body as { results?: unknown }).results;
  return sendCsv(reply, Array.isArray(body) ? body : Array.isArray(results) ? results : [body]);
}

/**
 * `/api/projects/:project_id/persons`: schemas and wiring only; the rules live in src/persons.
 * The response format is read first, so an unknown format is refused before anything is written.
 */
export async function personRoutes(app: FastifyInstance, context: AppContext): Promise<void> {
  const base = '/api/projects/:project_id/persons';
  const { persons } = context;

  app.get(`${base}/`, routeOptions(['person:read'], false), async (request, reply) => {
    const format = responseFormat(request);
    const project = requireProject(request);
    const query = request.query as RawQuery;
    const filter = readPersonListFilter(query);
    if (format === 'csv') return sendCsv(reply, persons.list.all(project, filter));
    const page = readPage(query, PERSON_PAGE);
    const { total, persons: results } = await persons.list.list(project, filter, page);
    return envelope(request, page, total, results);
  });

  app.post(`${base}/`, routeOptions(['person:write'], false), async () => {
    throw new ApiError(405, 'invalid_request', 'method_not_allowed', CREATE_NOT_ALLOWED);
  });

  app.get(`${base}/deletion_status/`, routeOptions(['person:read'], false), async (request, reply) => {
    const format = responseFormat(request);
    const query = request.query as RawQuery;
    const filter = readDeletionStatusQuery(requireProject(request), query);
    const page = readPage(query, DELETION_STATUS_PAGE);
    const { total, views } = await persons.deletionStatus.list(filter, page);
    return answer(reply, format, envelope(request, page, total, views));
  });

  app.get(`${base}/activity/`, routeOptions(['person:read', 'activity_log:read'], false), async (request, reply) => {
    const format = responseFormat(request);
    const page = readNumberedPage(request.query as RawQuery, ACTIVITY_PAGE);
    const { total, entries } = await persons.activity.ofProject(requireProject(request), page);
    return answer(reply, format, numberedEnvelope(request, page, total, entries));
  });

  app.get(`${base}/values/`, routeOptions(['person:read'], false), async (request, reply) => {
    const format = responseFormat(request);
    return answer(reply, format, await persons.values.values(requireProject(request), request.query as RawQuery));
  });

  app.get(`${base}/cohorts/`, routeOptions(['person:read', 'cohort:read'], false), async (request, reply) => {
    const format = responseFormat(request);
    const project = requireProject(request);
    const person = await persons.read.findByParam(project, stringParam(request.query as RawQuery, 'person_id'));
    const cohorts = await context.cohorts.cohortsOfPerson(project, person.uuid);
    return answer(reply, format, { results: cohorts.map(({ cohort, count }) => serializeCohort(cohort, count)) });
  });

  app.get(`${base}/:id/`, routeOptions(['person:read']), async (request, reply) => {
    const format = responseFormat(request);
    return answer(reply, format, await persons.read.retrieve(requireProject(request), personKeyOf(request)));
  });

  for (const method of ['PATCH', 'PUT'] as const) {
    app.route({
      method,
      url: `${base}/:id/`,
      ...routeOptions(['person:write']),
      handler: async (request, reply) => {
        const format = responseFormat(request);
        const key = personKeyOf(request);
        const set = readPropertiesPatch(request.body);
        return answer(reply, format, await persons.writes.setProperties(requireProject(request), key, set, actorOf(request)));
      },
    });
  }

  app.delete(`${base}/:id/`, routeOptions(['person:write']), async (request, reply) => {
    responseFormat(request);
    const key = personKeyOf(request);
    const deleteEvents = readDeleteEvents(request.query as RawQuery);
    await persons.writes.delete(requireProject(request), key, deleteEvents, actorOf(request));
    return reply.status(204).send();
  });

  app.post(`${base}/:id/update_property/`, routeOptions(['person:write']), async (request, reply) => {
    const format = responseFormat(request);
    const key = personKeyOf(request);
    const { key: property, value } = readPropertyUpdate(request.body, request.query as RawQuery);
    const person = await persons.writes.setProperties(requireProject(request), key, { [property]: value }, actorOf(request));
    return answer(reply, format, person);
  });

  app.post(`${base}/:id/delete_property/`, routeOptions(['person:write']), async (request, reply) => {
    const format = responseFormat(request);
    const key = personKeyOf(request);
    const property = readUnsetKey(request.body, request.query as RawQuery);
    return answer(reply, format, await persons.writes.deleteProperty(requireProject(request), key, property, actorOf(request)));
  });

  app.post(`${base}/:id/split/`, routeOptions(['person:write']), async (request, reply) => {
    const format = responseFormat(request);
    const key = personKeyOf(request);
    const split = readSplitRequest(request.body);
    return answer(reply, format, await persons.writes.split(requireProject(request), key, split, actorOf(request)));
  });

  app.get(`${base}/:id/activity/`, routeOptions(['activity_log:read']), async (request, reply) => {
    const format = responseFormat(request);
    const key = personKeyOf(request);
    const page = readNumberedPage(request.query as RawQuery, ACTIVITY_PAGE);
    const { total, entries } = await persons.activity.ofPerson(requireProject(request), key, page);
    return answer(reply, format, numberedEnvelope(request, page, total, entries));
  });

  app.get(`${base}/:id/properties_timeline/`, routeOptions(['person:read']), async (request, reply) => {
    const format = responseFormat(request);
    const key = personKeyOf(request);
    const timeline = await persons.timeline.timeline(requireProject(request), key, request.query as RawQuery);
    return format === 'csv' ? sendCsv(reply, timeline.points) : timeline;
  });
}
