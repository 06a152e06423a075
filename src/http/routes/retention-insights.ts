import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../context.js';
import { projectClock } from '../../insights/actors/analysis-inputs.js';
import { mergeRequestInput, type RawInput } from '../../insights/filter-model.js';
import { parseRetentionFilter } from '../../insights/retention/retention-filter.js';
import { legacyRetentionResult } from '../../insights/retention/retention-legacy-result.js';
import { requireProject } from '../request-context.js';

const Params = Type.Object({ project_id: Type.String() });

const JSON_TEXT = 'a JSON object, JSON-encoded in a query string';

const FilterFields = {
  target_entity: Type.Optional(
    Type.Unknown({ description: `The event or action that puts an actor in a cohort, {id, type, properties}: ${JSON_TEXT}. Default $pageview` }),
  ),
  returning_entity: Type.Optional(Type.Unknown({ description: `The event or action that counts as coming back: ${JSON_TEXT}. Default: the target entity` })),
  retention_type: Type.Optional(Type.String({ description: 'retention_recurring (default) or retention_first_time' })),
  period: Type.Optional(Type.String({ description: 'Hour, Day (default), Week or Month' })),
  total_intervals: Type.Optional(Type.Unknown({ description: 'Number of cohorts and intervals, default 11' })),
  date_to: Type.Optional(Type.String({ description: 'End of the window (default now); the window ends one period after it' })),
  properties: Type.Optional(Type.Unknown({ description: 'Property filters every event must pass: a list or a property group' })),
  filter_test_accounts: Type.Optional(Type.Unknown({ description: "true to leave out the project's test accounts" })),
  breakdowns: Type.Optional(Type.Unknown({ description: 'Rows per breakdown value instead of per cohort: [{property, type: event|person|group}]' })),
  breakdown: Type.Optional(Type.Unknown({ description: 'A property (or list of properties) to break down by, with breakdown_type' })),
  breakdown_type: Type.Optional(Type.String({ description: 'event (default), person or group' })),
  aggregation_group_type_index: Type.Optional(Type.Unknown({ description: 'Count groups of this type instead of persons' })),
};

const Query = Type.Object(FilterFields, { additionalProperties: true });
const Body = Type.Union([Type.Object(FilterFields, { additionalProperties: true }), Type.Null()]);

const Value = Type.Object({
  count: Type.Integer(),
  people: Type.Array(Type.Unknown(), { description: 'Always empty: follow people_url' }),
  people_url: Type.Optional(Type.String({ description: 'The actors of this data point (only when count > 0)' })),
});

const Row = Type.Object({
  values: Type.Array(Value, { description: 'Interval 0 (the cohort itself) and every interval after it' }),
  label: Type.String({ description: '"Day 3", or the breakdown values joined with ::' }),
  date: Type.Optional(Type.String({ description: "Start of the cohort's period (cohort rows)" })),
  breakdown_values: Type.Optional(Type.Array(Type.String())),
  people_url: Type.String({ description: 'The members of this row, with their appearances' }),
});

const Response = Type.Object({
  result: Type.Array(Row),
  timezone: Type.String(),
  is_cached: Type.Boolean(),
  last_refresh: Type.String({ format: 'date-time' }),
});

export async function retentionInsightRoutes(app: FastifyInstance, context: AppContext): Promise<void> {
  const handler = async (request: FastifyRequest) => {
    const project = requireProject(request);
    const input = mergeRequestInput(request.query as RawInput, request.body);
    const filter = parseRetentionFilter(input, projectClock(project));
    const result = await context.retention.run(project, filter);
    return {
      result: legacyRetentionResult(project.id, filter, result),
      timezone: project.timezone,
      is_cached: false,
      last_refresh: new Date().toISOString(),
    };
  };
  const description = 'Retention: of the actors who did the target event in each period, how many came back in each later period';
  const url = '/api/projects/:project_id/insights/retention/';
  const config = { scopes: ['insight:read' as const] };
  app.get(url, { schema: { description, params: Params, querystring: Query, response: { 200: Response } }, config }, handler);
  app.post(url, { schema: { description, params: Params, querystring: Query, body: Body, response: { 200: Response } }, config }, handler);
}
