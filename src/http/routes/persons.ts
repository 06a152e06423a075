import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { serializeCohort } from '../../cohorts/cohort-serializer.js';
import type { AppContext } from '../../context.js';
import { stringParam } from '../../util/request-params.js';
import { ApiError } from '../../errors.js';
import type { Scope } from '../../keys/scopes.js';
import { readDeletionStatusQuery } from '../../persons/deletion-status-service.js';
import { parsePersonKey } from '../../persons/person-id.js';
import { readPersonListFilter } from '../../persons/person-list-filter.js';
import { readDeleteEvents, readPropertiesPatch, readPropertyUpdate, readSplitRequest, readUnsetKey } from '../../persons/person-write-input.js';
import type { Actor } from '../../persons/person-write-service.js';
import { responseFormat, sendCsv } from '../flat-csv.js';
import { PersonCohorts } from '../schemas/cohort-schemas.js';
import { numberedEnvelope, readNumberedPage } from '../page-number-pagination.js';
import { envelope, readPage } from '../pagination.js';
import { requireProject } from '../request-context.js';
import {
  ActivityPage,
  ActivityQuery,
  DeleteQuery,
  Deleted,
  DeletionStatusList,
  DeletionStatusQuery,
  FormatQuery,
  Person,
  PersonCohortsQuery,
  PersonList,
  PersonListQuery,
  PersonParams,
  ProjectParams,
  PropertiesPatchBody,
  PropertiesTimeline,
  PropertyUnsetBody,
  PropertyUnsetQuery,
  PropertyUpdateBody,
  PropertyUpdateQuery,
  PropertyValues,
  SplitBody,
  TimelineQuery,
  ValuesQuery,
} from '../schemas/person-schemas.js';

const PERSON_PAGE = { defaultLimit: 100, maxLimit: 1000 };
const ACTIVITY_PAGE = { defaultLimit: 10, maxLimit: 1000 };
const DELETION_STATUS_PAGE = { defaultLimit: 100, maxLimit: 1000 };

const CREATE_NOT_ALLOWED =
  'Creating persons via this API is not allowed. Please create persons by sending an $identify event. See https://posthog.com/docs/product-analytics/identify for details.';

const config = (...scopes: Scope[]) => ({ scopes });

function actorOf(request: FastifyRequest): Actor {
  return { userId: request.apiKey!.user.id };
}

/** CSV of an answer's rows: its `results` when it has them, else the answer as one row. */
function csvOf(reply: FastifyReply, body: object): Promise<FastifyReply> {
  const results = (body as { results?: unknown }).results;
  return sendCsv(reply, Array.isArray(body) ? body : Array.isArray(results) ? results : [body]);
}

/**
 * `/api/projects/:project_id/persons`: schemas and wiring only; the rules live in src/persons.
 * The response format is read first, so an unknown format is refused before anything is written.
 * A CSV answer is a stream, which the response schemas (JSON only) leave alone.
 */
export async function personRoutes(instance: FastifyInstance, context: AppContext): Promise<void> {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const base = '/api/projects/:project_id/persons';
  const { persons } = context;

  app.get(
    `${base}/`,
    {
      schema: {
        description: "The project's persons, newest first",
        params: ProjectParams,
        querystring: PersonListQuery,
        response: { 200: PersonList },
      },
      config: config('person:read'),
    },
    async (request, reply) => {
      const format = responseFormat(request);
      const project = requireProject(request);
      const filter = readPersonListFilter(request.query);
      if (format === 'csv') return sendCsv(reply, persons.list.all(project, filter));
      const page = readPage(request.query, PERSON_PAGE);
      const { total, persons: results } = await persons.list.list(project, filter, page);
      return envelope(request, page, total, results);
    },
  );

  // Always refused: a client learns it from the 405, and the document lists no such operation.
  app.post(`${base}/`, { schema: { hide: true, params: ProjectParams }, config: config('person:write') }, async () => {
    throw new ApiError(405, 'invalid_request', 'method_not_allowed', CREATE_NOT_ALLOWED);
  });

  app.get(
    `${base}/deletion_status/`,
    {
      schema: {
        description: 'The event deletions queued by deleting persons with delete_events, newest first',
        params: ProjectParams,
        querystring: DeletionStatusQuery,
        response: { 200: DeletionStatusList },
      },
      config: config('person:read'),
    },
    async (request, reply) => {
      const format = responseFormat(request);
      const filter = readDeletionStatusQuery(requireProject(request), request.query);
      const page = readPage(request.query, DELETION_STATUS_PAGE);
      const { total, views } = await persons.deletionStatus.list(filter, page);
      const body = envelope(request, page, total, views);
      return format === 'csv' ? csvOf(reply, body) : body;
    },
  );

  app.get(
    `${base}/activity/`,
    {
      schema: {
        description: "The activity log of the project's persons, newest first",
        params: ProjectParams,
        querystring: ActivityQuery,
        response: { 200: ActivityPage },
      },
      config: config('person:read', 'activity_log:read'),
    },
    async (request, reply) => {
      const format = responseFormat(request);
      const page = readNumberedPage(request.query, ACTIVITY_PAGE);
      const { total, entries } = await persons.activity.ofProject(requireProject(request), page);
      const body = numberedEnvelope(request, page, total, entries);
      return format === 'csv' ? csvOf(reply, body) : body;
    },
  );

  app.get(
    `${base}/values/`,
    {
      schema: {
        description: 'The commonest values of a person property, with how many persons have each',
        params: ProjectParams,
        querystring: ValuesQuery,
        response: { 200: PropertyValues },
      },
      config: config('person:read'),
    },
    async (request, reply) => {
      const format = responseFormat(request);
      const values = await persons.values.values(requireProject(request), request.query);
      return format === 'csv' ? csvOf(reply, values) : values;
    },
  );

  app.get(
    `${base}/cohorts/`,
    {
      schema: {
        description: 'The cohorts the person belongs to now',
        params: ProjectParams,
        querystring: PersonCohortsQuery,
        response: { 200: PersonCohorts },
      },
      config: config('person:read', 'cohort:read'),
    },
    async (request, reply) => {
      const format = responseFormat(request);
      const project = requireProject(request);
      const person = await persons.read.findByParam(project, stringParam(request.query, 'person_id'));
      const cohorts = await context.cohorts.cohortsOfPerson(project, person.uuid);
      const body = { results: cohorts.map(({ cohort, count }) => serializeCohort(cohort, count)) };
      return format === 'csv' ? csvOf(reply, body) : body;
    },
  );

  app.get(
    `${base}/:id/`,
    {
      schema: { description: 'One person', params: PersonParams, querystring: FormatQuery, response: { 200: Person } },
      config: config('person:read'),
    },
    async (request, reply) => {
      const format = responseFormat(request);
      const person = await persons.read.retrieve(requireProject(request), parsePersonKey(request.params.id));
      return format === 'csv' ? csvOf(reply, person) : person;
    },
  );

  app.route({
    method: ['PATCH', 'PUT'],
    url: `${base}/:id/`,
    schema: {
      description: 'Sets person properties (the others are kept); answers the person',
      params: PersonParams,
      querystring: FormatQuery,
      body: PropertiesPatchBody,
      response: { 200: Person },
    },
    config: config('person:write'),
    handler: async (request, reply) => {
      const format = responseFormat(request);
      const key = parsePersonKey(request.params.id);
      const set = readPropertiesPatch(request.body);
      const person = await persons.writes.setProperties(requireProject(request), key, set, actorOf(request));
      return format === 'csv' ? csvOf(reply, person) : person;
    },
  });

  app.delete(
    `${base}/:id/`,
    {
      schema: {
        description: 'Deletes the person and frees its distinct ids; its events stay unless delete_events is set',
        params: PersonParams,
        querystring: DeleteQuery,
        response: { 204: Deleted },
      },
      config: config('person:write'),
    },
    async (request, reply) => {
      responseFormat(request);
      const key = parsePersonKey(request.params.id);
      const deleteEvents = readDeleteEvents(request.query);
      await persons.writes.delete(requireProject(request), key, deleteEvents, actorOf(request));
      return reply.status(204).send(null);
    },
  );

  app.post(
    `${base}/:id/update_property/`,
    {
      schema: {
        description: 'Sets one person property; key and value from the body, else from the query string',
        params: PersonParams,
        querystring: PropertyUpdateQuery,
        body: PropertyUpdateBody,
        response: { 200: Person },
      },
      config: config('person:write'),
    },
    async (request, reply) => {
      const format = responseFormat(request);
      const key = parsePersonKey(request.params.id);
      const { key: property, value } = readPropertyUpdate(request.body, request.query);
      const person = await persons.writes.setProperties(requireProject(request), key, { [property]: value }, actorOf(request));
      return format === 'csv' ? csvOf(reply, person) : person;
    },
  );

  app.post(
    `${base}/:id/delete_property/`,
    {
      schema: {
        description: 'Removes one person property; $unset from the body, else from the query string',
        params: PersonParams,
        querystring: PropertyUnsetQuery,
        body: PropertyUnsetBody,
        response: { 200: Person },
      },
      config: config('person:write'),
    },
    async (request, reply) => {
      const format = responseFormat(request);
      const key = parsePersonKey(request.params.id);
      const property = readUnsetKey(request.body, request.query);
      const person = await persons.writes.deleteProperty(requireProject(request), key, property, actorOf(request));
      return format === 'csv' ? csvOf(reply, person) : person;
    },
  );

  app.post(
    `${base}/:id/split/`,
    {
      schema: {
        description: 'Moves distinct ids off the person, each to a new person of its own; answers the person with the ids that stay',
        params: PersonParams,
        querystring: FormatQuery,
        body: SplitBody,
        response: { 200: Person },
      },
      config: config('person:write'),
    },
    async (request, reply) => {
      const format = responseFormat(request);
      const key = parsePersonKey(request.params.id);
      const split = readSplitRequest(request.body);
      const person = await persons.writes.split(requireProject(request), key, split, actorOf(request));
      return format === 'csv' ? csvOf(reply, person) : person;
    },
  );

  app.get(
    `${base}/:id/activity/`,
    {
      schema: {
        description: "The person's activity log, newest first",
        params: PersonParams,
        querystring: ActivityQuery,
        response: { 200: ActivityPage },
      },
      config: config('activity_log:read'),
    },
    async (request, reply) => {
      const format = responseFormat(request);
      const key = parsePersonKey(request.params.id);
      const page = readNumberedPage(request.query, ACTIVITY_PAGE);
      const { total, entries } = await persons.activity.ofPerson(requireProject(request), key, page);
      const body = numberedEnvelope(request, page, total, entries);
      return format === 'csv' ? csvOf(reply, body) : body;
    },
  );

  app.get(
    `${base}/:id/properties_timeline/`,
    {
      schema: {
        description: "How the person's properties looked on its events in a range: a point wherever a property the filter uses changed",
        params: PersonParams,
        querystring: TimelineQuery,
        response: { 200: PropertiesTimeline },
      },
      config: config('person:read'),
    },
    async (request, reply) => {
      const format = responseFormat(request);
      const timeline = await persons.timeline.timeline(requireProject(request), parsePersonKey(request.params.id), request.query);
      return format === 'csv' ? sendCsv(reply, timeline.points) : timeline;
    },
  );
}
