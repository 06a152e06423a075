import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../context.js';
import { mergeRequestInput, type RawInput } from '../../insights/filter-model.js';
import { legacyCorrelationResult } from '../../insights/funnels/correlation-legacy-result.js';
import { parseCorrelationFilter } from '../../insights/funnels/correlation-filter.js';
import { parseFunnelFilter } from '../../insights/funnels/funnel-filter.js';
import { legacyFunnelResult } from '../../insights/funnels/funnel-legacy-result.js';
import { requireProject } from '../request-context.js';

const Params = Type.Object({ project_id: Type.String() });

const JSON_TEXT = 'JSON-encoded in a query string';

const FunnelFields = {
  events: Type.Optional(Type.Unknown({ description: `The steps that are events, [{id, order, properties, custom_name}]: ${JSON_TEXT}` })),
  actions: Type.Optional(Type.Unknown({ description: `The steps that are actions, [{id, order, properties}]: ${JSON_TEXT}. Steps follow their order` })),
  properties: Type.Optional(Type.Unknown({ description: 'Property filters every event must pass: a list or a property group' })),
  filter_test_accounts: Type.Optional(Type.Unknown({ description: "true to leave out the project's test accounts" })),
  date_from: Type.Optional(Type.String({ description: 'Start of the range (default -7d); all for the first event' })),
  date_to: Type.Optional(Type.String({ description: 'End of the range (default now); later conversions are not seen' })),
  interval: Type.Optional(Type.String({ description: 'Funnel trends: hour, day (default), week or month' })),
  funnel_order_type: Type.Optional(Type.String({ description: 'ordered (default), strict (no other event between steps) or unordered' })),
  funnel_viz_type: Type.Optional(Type.String({ description: 'steps (default), trends or time_to_convert' })),
  funnel_window_interval: Type.Optional(Type.Unknown({ description: 'Conversion window from the first step, default 14' })),
  funnel_window_interval_unit: Type.Optional(Type.String({ description: 'second, minute, hour, day (default), week or month' })),
  funnel_window_days: Type.Optional(Type.Unknown({ description: 'Conversion window in days; wins over the interval and unit' })),
  funnel_from_step: Type.Optional(Type.Unknown({ description: 'Trends and time to convert: the step converted from (0-based, default 0)' })),
  funnel_to_step: Type.Optional(Type.Unknown({ description: 'Trends and time to convert: the step converted to (default the last)' })),
  bin_count: Type.Optional(Type.Unknown({ description: 'Time to convert: number of bins, 1 to 90 (default automatic)' })),
  exclusions: Type.Optional(
    Type.Unknown({
      description: `Events or actions that disqualify an attempt between two steps, [{id, type, funnel_from_step, funnel_to_step}]: ${JSON_TEXT}`,
    }),
  ),
  breakdown: Type.Optional(Type.Unknown({ description: 'A property, a list of properties, or cohort ids (with breakdown_type cohort)' })),
  breakdown_type: Type.Optional(Type.String({ description: 'event (default), person, group or cohort' })),
  breakdown_limit: Type.Optional(Type.Unknown({ description: 'Property values shown (default 25); the rest are Other' })),
  breakdown_group_type_index: Type.Optional(Type.Unknown({ description: 'Group type of a group breakdown' })),
  breakdown_attribution_type: Type.Optional(Type.String({ description: 'first_touch (default), last_touch, all_events or step' })),
  breakdown_attribution_value: Type.Optional(Type.Unknown({ description: 'Step attribution: the step whose value counts' })),
  aggregation_group_type_index: Type.Optional(Type.Unknown({ description: 'Count groups of this type instead of persons' })),
};

const CorrelationFields = {
  ...FunnelFields,
  funnel_correlation_type: Type.Optional(Type.String({ description: 'events (default), properties or event_with_properties' })),
  funnel_correlation_exclude_event_names: Type.Optional(Type.Unknown({ description: `Events mode: event names left out, ${JSON_TEXT}` })),
  funnel_correlation_names: Type.Optional(
    Type.Unknown({ description: `Properties mode (required): person (or group) property names, $all for every one, ${JSON_TEXT}` }),
  ),
  funnel_correlation_exclude_names: Type.Optional(Type.Unknown({ description: `Properties mode: property names left out, ${JSON_TEXT}` })),
  funnel_correlation_event_names: Type.Optional(
    Type.Unknown({ description: `Event-with-properties mode (required): the events whose properties are correlated, ${JSON_TEXT}` }),
  ),
  funnel_correlation_event_exclude_property_names: Type.Optional(
    Type.Unknown({ description: `Event-with-properties mode: properties left out, ${JSON_TEXT}` }),
  ),
};

const FunnelQuery = Type.Object(FunnelFields, { additionalProperties: true });
const FunnelBody = Type.Union([Type.Object(FunnelFields, { additionalProperties: true }), Type.Null()]);
const CorrelationQuery = Type.Object(CorrelationFields, { additionalProperties: true });
const CorrelationBody = Type.Union([Type.Object(CorrelationFields, { additionalProperties: true }), Type.Null()]);

const Envelope = {
  timezone: Type.String(),
  is_cached: Type.Boolean(),
  last_refresh: Type.String({ format: 'date-time' }),
};

const FunnelResponse = Type.Object({
  result: Type.Unknown({
    description:
      'steps: [{action_id, name, custom_name, order, people, count, type, average_conversion_time, median_conversion_time, converted_people_url, dropped_people_url}], ' +
      'a list of such lists with a breakdown (each step with breakdown and breakdown_value); ' +
      'trends: [{count, data (conversion % per entrance period), days, labels, breakdown_value?}]; ' +
      'time_to_convert: {bins: [[seconds, actors]], average_conversion_time}',
  }),
  ...Envelope,
});

const CorrelationRow = Type.Object({
  event: Type.Object({
    event: Type.String({ description: 'The event, event::property::value, or property::value' }),
    properties: Type.Record(Type.String(), Type.Unknown()),
    elements: Type.Array(Type.Unknown()),
  }),
  success_count: Type.Integer({ description: 'Actors who completed the funnel and had the event or value' }),
  failure_count: Type.Integer({ description: 'Actors who entered and did not complete it, with the event or value' }),
  odds_ratio: Type.Number(),
  correlation_type: Type.Union([Type.Literal('success'), Type.Literal('failure')]),
  success_people_url: Type.String(),
  failure_people_url: Type.String(),
});

const CorrelationResponse = Type.Object({
  result: Type.Object({
    events: Type.Array(CorrelationRow, { description: 'The ten most positively correlated rows, then the ten most negatively correlated' }),
    skewed: Type.Boolean({ description: 'Successes and failures are more than ten to one apart (or one side is empty)' }),
  }),
  ...Envelope,
});

/** `GET|POST /insights/funnel/` and `/insights/funnel/correlation/`: the funnel and correlation runners, in PostHog's legacy shapes. */
export async function funnelInsightRoutes(app: FastifyInstance, context: AppContext): Promise<void> {
  const config = { scopes: ['insight:read' as const] };
  const envelope = (timezone: string, result: unknown) => ({ result, timezone, is_cached: false, last_refresh: new Date().toISOString() });

  const funnel = async (request: FastifyRequest) => {
    const project = requireProject(request);
    const input = mergeRequestInput(request.query as RawInput, request.body);
    const result = await context.funnels.run(project, parseFunnelFilter(input));
    return envelope(project.timezone, legacyFunnelResult(project.id, input, result));
  };
  const funnelUrl = '/api/projects/:project_id/insights/funnel/';
  const funnelDescription = 'Funnel: how many actors reached each step, conversion over time, or the time they took to convert';
  app.get(
    funnelUrl,
    { schema: { description: funnelDescription, params: Params, querystring: FunnelQuery, response: { 200: FunnelResponse } }, config },
    funnel,
  );
  app.post(
    funnelUrl,
    { schema: { description: funnelDescription, params: Params, querystring: FunnelQuery, body: FunnelBody, response: { 200: FunnelResponse } }, config },
    funnel,
  );

  const correlation = async (request: FastifyRequest) => {
    const project = requireProject(request);
    const input = mergeRequestInput(request.query as RawInput, request.body);
    const filter = parseCorrelationFilter(input);
    const result = await context.funnelCorrelation.run(project, filter);
    return envelope(project.timezone, legacyCorrelationResult(project.id, input, filter.funnel.aggregationGroupTypeIndex, result));
  };
  const correlationUrl = '/api/projects/:project_id/insights/funnel/correlation/';
  const correlationDescription = "Funnel correlation: the events, event properties or actor properties whose actors convert more (or less) than the funnel's";
  app.get(
    correlationUrl,
    { schema: { description: correlationDescription, params: Params, querystring: CorrelationQuery, response: { 200: CorrelationResponse } }, config },
    correlation,
  );
  app.post(
    correlationUrl,
    {
      schema: {
        description: correlationDescription,
        params: Params,
        querystring: CorrelationQuery,
        body: CorrelationBody,
        response: { 200: CorrelationResponse },
      },
      config,
    },
    correlation,
  );
}
