import type { FastifyInstance, FastifyRequest } from 'fastify';
import { DateTime } from 'luxon';
import { Type } from 'typebox';
import type { AppContext } from '../../context.js';
import { flagParam } from '../../util/request-params.js';
import { encodeEventCursor, type EventCursor } from '../../events/event-cursor.js';
import { readEventListQuery } from '../../events/event-list-query.js';
import { serializeEvent } from '../../events/event-serializer.js';
import { requireProject } from '../request-context.js';

const ListParams = Type.Object({ project_id: Type.String() });
const ItemParams = Type.Object({ project_id: Type.String(), id: Type.String({ description: 'The event UUID' }) });

const DATE = 'ISO 8601 (no offset: the project timezone) or relative (-7d, -24h, -1mStart, …)';

const IncludePerson = Type.Optional(Type.String({ description: "true, false, 1 or 0: add each event's person" }));

const ListQuery = Type.Object({
  event: Type.Optional(Type.String({ description: 'Only events of this name' })),
  distinct_id: Type.Optional(Type.String({ description: 'Only events of this distinct id' })),
  person_id: Type.Optional(Type.String({ description: "Integer id or UUID: the events of any of the person's distinct ids" })),
  action_id: Type.Optional(Type.String({ description: 'Only events matching this action' })),
  properties: Type.Optional(Type.String({ description: 'JSON list or AND/OR group of event, person, group, cohort and element filters' })),
  after: Type.Optional(Type.String({ description: `Only events after this time (exclusive); ${DATE}. Default: all history` })),
  before: Type.Optional(Type.String({ description: `Only events before this time (exclusive); ${DATE}. Default: now + 5 s` })),
  orderBy: Type.Optional(Type.String({ description: '["-timestamp"] (default, newest first) or ["timestamp"]' })),
  include_person: IncludePerson,
  limit: Type.Optional(Type.String({ description: 'Page size, default 100, at most 10000 (larger values are clamped)' })),
  offset: Type.Optional(Type.String({ description: 'At most 50000; follow next to read further' })),
  cursor: Type.Optional(Type.String({ description: 'Set by next links: continue after the last event of a page' })),
});

const ItemQuery = Type.Object({ include_person: IncludePerson });

const Person = Type.Object({
  is_identified: Type.Boolean(),
  distinct_ids: Type.Array(Type.String(), { description: "The person's first distinct id" }),
  properties: Type.Object({}, { additionalProperties: true, description: 'email, name and username, those the person has' }),
});

const Event = Type.Object({
  id: Type.String({ format: 'uuid' }),
  distinct_id: Type.String(),
  properties: Type.Object({}, { additionalProperties: true }),
  event: Type.String(),
  timestamp: Type.String({ format: 'date-time' }),
  person: Type.Union([Person, Type.Null()], { description: 'Null unless include_person=true' }),
  elements: Type.Array(Type.Object({}, { additionalProperties: true }), { description: 'Always empty: see elements_chain' }),
  elements_chain: Type.String(),
});

const ListResponse = Type.Object({
  next: Type.Union([Type.String(), Type.Null()], {
    description: 'The next page; following it yields every matching event exactly once. Null on the last page',
  }),
  results: Type.Array(Event),
});

/**
 * The request's own absolute URL (as the client wrote it, /api/environments/ included) continuing
 * after `cursor`; the offset was used up on this page.
 */
function nextUrl(request: FastifyRequest, cursor: EventCursor): string {
  const url = new URL(request.originalUrl, `${request.protocol}://${request.host}`);
  url.searchParams.delete('offset');
  url.searchParams.set('cursor', encodeEventCursor(cursor));
  return url.toString();
}

export async function eventRoutes(app: FastifyInstance, context: AppContext): Promise<void> {
  const path = '/api/projects/:project_id/events/';

  app.get(
    path,
    {
      schema: {
        description: "The project's events, newest first, with filters; page through them with next",
        params: ListParams,
        querystring: ListQuery,
        response: { 200: ListResponse },
      },
      config: { scopes: ['query:read'] },
    },
    async (request) => {
      const project = requireProject(request);
      const query = readEventListQuery(request.query as Record<string, unknown>, project.timezone, DateTime.utc());
      const page = await context.events.list(project, query);
      return { next: page.next && nextUrl(request, page.next), results: page.events.map(serializeEvent) };
    },
  );

  app.get(
    `${path}:id/`,
    {
      schema: { description: 'One event by its UUID', params: ItemParams, querystring: ItemQuery, response: { 200: Event } },
      config: { scopes: ['query:read'] },
    },
    async (request) => {
      const { id } = request.params as { id: string };
      const includePerson = flagParam(request.query as Record<string, unknown>, 'include_person') === true;
      return serializeEvent(await context.events.get(requireProject(request), id, includePerson));
    },
  );
}
