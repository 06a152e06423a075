import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../context.js';
import { mergeRequestInput, type RawInput } from '../../insights/filter-model.js';
import { parsePathFilter } from '../../insights/paths/path-filter.js';
import { legacyPathResult } from '../../insights/paths/path-legacy-result.js';
import { requireProject } from '../request-context.js';

const Params = Type.Object({ project_id: Type.String() });

const JSON_LIST = 'a JSON list, JSON-encoded in a query string';

const FilterFields = {
  date_from: Type.Optional(Type.String({ description: 'Start of the range (default -7d)' })),
  date_to: Type.Optional(Type.String({ description: 'End of the range (default now)' })),
  include_event_types: Type.Optional(
    Type.Unknown({ description: `Which events are path items: $pageview, $screen, custom_event (${JSON_LIST}); empty = every event` }),
  ),
  include_custom_events: Type.Optional(Type.Unknown({ description: `Custom events by name to include (${JSON_LIST})` })),
  exclude_events: Type.Optional(Type.Unknown({ description: `Path items to leave out (${JSON_LIST})` })),
  start_point: Type.Optional(Type.String({ description: 'Paths start at this item' })),
  end_point: Type.Optional(Type.String({ description: 'Paths end at this item' })),
  step_limit: Type.Optional(Type.Unknown({ description: 'Items per path, default 5' })),
  edge_limit: Type.Optional(Type.Unknown({ description: 'Edges answered, default 50 (no limit when both points are set)' })),
  min_edge_weight: Type.Optional(Type.Unknown({ description: 'Only edges with at least this value' })),
  max_edge_weight: Type.Optional(Type.Unknown({ description: 'Only edges with at most this value' })),
  path_groupings: Type.Optional(Type.Unknown({ description: `Wildcard patterns (*) an item is replaced by when it matches (${JSON_LIST})` })),
  local_path_cleaning_filters: Type.Optional(Type.Unknown({ description: `Cleaning rules [{regex, alias}] applied to every item in order (${JSON_LIST})` })),
  path_replacements: Type.Optional(Type.Unknown({ description: "true to apply the project's path cleaning rules first" })),
  funnel_paths: Type.Optional(Type.String({ description: 'funnel_path_after_step, funnel_path_before_step or funnel_path_between_steps' })),
  funnel_filter: Type.Optional(Type.Unknown({ description: 'The funnel of funnel_paths, with its funnel_step: a JSON object' })),
  properties: Type.Optional(Type.Unknown({ description: 'Property filters every event must pass: a list or a property group' })),
  filter_test_accounts: Type.Optional(Type.Unknown({ description: "true to leave out the project's test accounts" })),
};

const Query = Type.Object(FilterFields, { additionalProperties: true });
const Body = Type.Union([Type.Object(FilterFields, { additionalProperties: true }), Type.Null()]);

const Edge = Type.Object({
  source: Type.String({ description: '<position>_<item> of the earlier node, e.g. 1_/home' }),
  target: Type.String({ description: '<position + 1>_<item> of the later node' }),
  value: Type.Integer({ description: 'Session paths (person-sessions) with this transition' }),
  average_conversion_time: Type.Number({ description: 'Average time between the two events, in milliseconds' }),
});

const Response = Type.Object({
  result: Type.Array(Edge),
  timezone: Type.String(),
  is_cached: Type.Boolean(),
  last_refresh: Type.String({ format: 'date-time' }),
});

export async function pathInsightRoutes(app: FastifyInstance, context: AppContext): Promise<void> {
  const handler = async (request: FastifyRequest) => {
    const project = requireProject(request);
    const filter = parsePathFilter(mergeRequestInput(request.query as RawInput, request.body));
    const result = await context.paths.run(project, filter);
    return { result: legacyPathResult(result), timezone: project.timezone, is_cached: false, last_refresh: new Date().toISOString() };
  };
  const description = "Paths: the transitions between the items of people's session paths, heaviest first";
  const url = '/api/projects/:project_id/insights/path/';
  const config = { scopes: ['insight:read' as const] };
  app.get(url, { schema: { description, params: Params, querystring: Query, response: { 200: Response } }, config }, handler);
  app.post(url, { schema: { description, params: Params, querystring: Query, body: Body, response: { 200: Response } }, config }, handler);
}
