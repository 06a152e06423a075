import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../context.js';
import { readPropertyDefinitionFilter } from '../../definitions/property-definition-query.js';
import { serializePropertyDefinition } from '../../definitions/property-definition-serializer.js';
import type { PropertyDefinitionPatch } from '../../definitions/property-definition-service.js';
import { envelope, readPage } from '../pagination.js';
import { requireProject } from '../request-context.js';

const ListParams = Type.Object({ project_id: Type.String() });
const ItemParams = Type.Object({ project_id: Type.String(), id: Type.String({ description: 'The definition UUID' }) });

const FLAG = 'true, false, 1 or 0';

/** A query parameter; given more than once, the last value counts (`properties` takes them all). */
function queryText(description?: string) {
  return Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())], description === undefined ? {} : { description }));
}

const ListQuery = Type.Object({
  type: queryText('event (default), person, group or session'),
  group_type_index: queryText('Group type 0–4; required with type=group'),
  search: queryText('Every whitespace-separated word must appear in the name'),
  properties: queryText('Comma-separated names to keep'),
  excluded_properties: queryText('JSON list of names to leave out'),
  event_names: queryText('JSON list of event names; marks is_seen_on_filtered_events'),
  filter_by_event_names: queryText(`Keep only properties seen on event_names (${FLAG})`),
  is_numerical: queryText(`Only numeric properties (${FLAG})`),
  is_feature_flag: queryText(`Only (true) or no (false) $feature/ properties (${FLAG})`),
  exclude_core_properties: queryText(`Event properties only: leave out $ names and PostHog's other core event properties (${FLAG})`),
  exclude_hidden: queryText(`Leave out hidden definitions (${FLAG})`),
  limit: queryText('Page size, default 100, at most 10000'),
  offset: queryText(),
});

const PropertyDefinition = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  tags: Type.Array(Type.String()),
  is_numerical: Type.Boolean(),
  property_type: Type.Union([Type.String({ description: 'String, Numeric, Boolean, DateTime or Duration' }), Type.Null()]),
  updated_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  is_seen_on_filtered_events: Type.Union([Type.Boolean(), Type.Null()], { description: 'Null unless event_names was given' }),
  hidden: Type.Boolean(),
  verified: Type.Boolean(),
});

const ListResponse = Type.Object({
  count: Type.Integer(),
  next: Type.Union([Type.String(), Type.Null()]),
  previous: Type.Union([Type.String(), Type.Null()]),
  results: Type.Array(PropertyDefinition),
});

const PatchBody = Type.Object(
  {
    property_type: Type.Optional(Type.Unknown({ description: 'String, Numeric, Boolean, DateTime, Duration or null' })),
    description: Type.Optional(Type.Unknown({ description: 'Text or null' })),
    tags: Type.Optional(Type.Unknown({ description: 'List of strings' })),
    hidden: Type.Optional(Type.Unknown({ description: `${FLAG}; hiding un-verifies` })),
    verified: Type.Optional(Type.Unknown({ description: `${FLAG}; verifying un-hides; not together with hidden: true` })),
  },
  { additionalProperties: true },
);

const PAGE = { defaultLimit: 100, maxLimit: 10_000 };

export async function propertyDefinitionRoutes(app: FastifyInstance, context: AppContext): Promise<void> {
  const path = '/api/projects/:project_id/property_definitions/';

  app.get(
    path,
    {
      schema: {
        description: "The project's property definitions, by name",
        params: ListParams,
        querystring: ListQuery,
        response: { 200: ListResponse },
      },
      config: { scopes: ['property_definition:read'] },
    },
    async (request) => {
      const query = request.query as Record<string, unknown>;
      const page = readPage(query, PAGE);
      const filter = readPropertyDefinitionFilter(query);
      const { total, definitions } = await context.propertyDefinitions.list(requireProject(request), filter, page);
      return envelope(request, page, total, definitions.map(serializePropertyDefinition));
    },
  );

  app.get(
    `${path}:id/`,
    { schema: { params: ItemParams, response: { 200: PropertyDefinition } }, config: { scopes: ['property_definition:read'] } },
    async (request) => {
      const { id } = request.params as { id: string };
      return serializePropertyDefinition(await context.propertyDefinitions.get(requireProject(request), id));
    },
  );

  app.patch(
    `${path}:id/`,
    {
      schema: { params: ItemParams, body: PatchBody, response: { 200: PropertyDefinition } },
      config: { scopes: ['property_definition:write'] },
    },
    async (request) => {
      const { id } = request.params as { id: string };
      const patch = request.body as PropertyDefinitionPatch;
      return serializePropertyDefinition(await context.propertyDefinitions.update(requireProject(request), id, patch));
    },
  );
}
