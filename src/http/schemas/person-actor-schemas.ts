import { Type, type Static, type TSchema } from 'typebox';
import { Nullable } from './common-schemas.js';
import { Person } from './person-schemas.js';

/**
 * The schemas of the legacy actors endpoints (`/persons/trends/` and the others, GET and POST):
 * the legacy insight filter that selects a data point, in the query string (text; lists and
 * objects JSON-encoded) or in a POST body (JSON values), and the envelopes they answer with.
 * The filter parsers judge every value, so the schemas name the fields without constraining
 * them, and fields not listed pass through to the parsers.
 */

type Fields = Record<string, string>;

const JSON_TEXT = 'JSON-encoded in a query string';

const PAGE: Fields = {
  limit: 'Page size, default 100, at most 1000',
  offset: 'Actors skipped, default 0',
};

const COMMON: Fields = {
  events: `Event series, [{id, order, math, properties, custom_name}], ${JSON_TEXT}`,
  actions: `Action series, [{id, order, math, properties}], ${JSON_TEXT}`,
  properties: `Property filters every event must pass: a list or an AND/OR group, ${JSON_TEXT}; the query string's wins over the body's`,
  filter_test_accounts: "true to leave out the project's test accounts",
  date_from: 'Absolute or relative (-7d) date, or all',
  date_to: 'Absolute or relative date; default now',
  interval: 'hour, day (default), week or month',
  search: 'Only persons whose email or name contains this (case-insensitive)',
  aggregation_group_type_index: 'Count groups of this type instead of persons',
};

const ENTITY: Fields = {
  entity_id: 'The series of the data point: its event name or action id (alias entityId)',
  entity_type: 'events (default) or actions (alias type)',
  entity_math: 'The math of the series, default total',
  entity_order: 'The position of the series in events and actions',
};

const BREAKDOWN: Fields = {
  breakdown: 'A property name, or cohort ids (with breakdown_type cohort)',
  breakdown_type: 'event (default), person, group, session or cohort',
  breakdown_group_type_index: 'Group type of a group breakdown',
};

const FUNNEL: Fields = {
  ...COMMON,
  ...BREAKDOWN,
  funnel_order_type: 'ordered (default), strict or unordered',
  funnel_viz_type: 'steps (default), trends or time_to_convert',
  funnel_window_interval: 'Conversion window from the first step, default 14',
  funnel_window_interval_unit: 'second, minute, hour, day (default), week or month',
  funnel_window_days: 'Conversion window in days; wins over the interval and unit',
  exclusions: `Events or actions that disqualify an attempt between two steps, [{id, type, funnel_from_step, funnel_to_step}], ${JSON_TEXT}`,
  breakdown_attribution_type: 'first_touch (default), last_touch, all_events or step',
  breakdown_attribution_value: 'Step attribution: the step whose value counts',
};

const TRENDS: Fields = {
  ...COMMON,
  ...ENTITY,
  ...BREAKDOWN,
  breakdown_value: 'The breakdown value of the data point; "" is the none bucket, a cohort id or all for cohorts',
  display: 'The insight display; cumulative and non-time-series displays take the range as given',
  ...PAGE,
};

const STICKINESS: Fields = {
  ...COMMON,
  ...ENTITY,
  stickiness_days: 'The data point (required): actors active in exactly this many intervals',
  ...PAGE,
};

const LIFECYCLE: Fields = {
  ...COMMON,
  target_date: "The data point's bucket start (required)",
  lifecycle_type: 'new, returning, resurrecting or dormant (required)',
  ...PAGE,
};

const RETENTION: Fields = {
  ...COMMON,
  ...BREAKDOWN,
  target_entity: `The starting event or action, {id, type}, ${JSON_TEXT}`,
  returning_entity: `The returning event or action, {id, type}, ${JSON_TEXT}`,
  retention_type: 'retention_recurring (default) or retention_first_time',
  period: 'Hour, Day (default), Week or Month',
  total_intervals: 'Intervals in the table, default 11',
  selected_interval: 'The row (the starting interval), default 0',
  breakdown_values: `The breakdown value of the row, ${JSON_TEXT}; wins over selected_interval`,
  breakdowns: `Breakdowns as a list of {property, type}, ${JSON_TEXT}`,
  ...PAGE,
};

const FUNNEL_STEP: Fields = {
  ...FUNNEL,
  funnel_step: 'The data point: N reached step N or further, -N dropped off before step N (required unless funnel_custom_steps)',
  funnel_custom_steps: `Actors whose last step reached is in this list, ${JSON_TEXT}; wins over funnel_step`,
  funnel_step_breakdown: 'The breakdown value of the data point',
  funnel_from_step: 'Funnel trends: the step converted from (0-based, default 0)',
  funnel_to_step: 'Funnel trends: the step converted to (default the last)',
  entrance_period_start: 'Funnel trends: the entrance period of the data point',
  drop_off: 'Funnel trends: true for the actors who dropped off, false for those who converted',
  ...PAGE,
};

const CORRELATION: Fields = {
  ...FUNNEL,
  funnel_correlation_type: 'events (default), properties or event_with_properties',
  funnel_correlation_person_entity: `Events: the correlated event, {id, type, properties}, ${JSON_TEXT}`,
  funnel_correlation_property_values: `Properties: the correlated property values, a list of property filters, ${JSON_TEXT}`,
  funnel_correlation_person_converted: 'true: actors who completed the funnel; false: who did not; absent: both',
  funnel_correlation_person_limit: 'Page size, default 100, at most 1000',
  funnel_correlation_person_offset: 'Actors skipped, default 0',
};

const PATH: Fields = {
  ...COMMON,
  include_event_types: `$pageview, $screen and/or custom_event, ${JSON_TEXT}`,
  path_type: 'One event type, when include_event_types is absent',
  start_point: 'Paths from this item',
  end_point: 'Paths to this item',
  step_limit: 'Steps in a path, default 5',
  exclude_events: `Items left out of the paths, ${JSON_TEXT}`,
  path_groupings: `Wildcard groupings of items, ${JSON_TEXT}`,
  path_replacements: "true to apply the project's path cleaning rules",
  local_path_cleaning_filters: `Path cleaning rules, [{alias, regex}], ${JSON_TEXT}`,
  include_custom_events: `Custom events to include, ${JSON_TEXT}`,
  edge_limit: 'Edges in the graph, default 50 (unbounded with both start_point and end_point)',
  min_edge_weight: 'Leave out edges with fewer actors',
  max_edge_weight: 'Leave out edges with more actors',
  funnel_paths: 'funnel_path_after_step, funnel_path_before_step or funnel_path_between_steps',
  funnel_filter: 'The funnel of funnel_paths: a funnel filter, JSON-encoded in a query string, an object in a body',
  path_start_key: 'The data point: actors on an edge from this node, "<step>_<item>"',
  path_end_key: 'Actors on an edge to this node, "<step>_<item>"; with path_start_key, that edge',
  path_dropoff_key: 'Actors whose path ended at this node, "<step>_<item>"',
  ...PAGE,
};

/** A query parameter: text, or a list when it is repeated. */
const param = (description: string) => Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())], { description }));

function filterQuery(fields: Fields) {
  const params = Object.fromEntries(Object.entries(fields).map(([key, description]) => [key, param(description)]));
  return Type.Object(
    { ...params, format: param('csv for the people as CSV (also with Accept: text/csv), json by default; another value is a 404') },
    { additionalProperties: true },
  );
}

/** The filter as a JSON body, or no body (the query string alone). */
function filterBody(fields: Fields) {
  const properties: Record<string, TSchema> = Object.fromEntries(
    Object.entries(fields).map(([key, description]) => [key, Type.Optional(Type.Unknown({ description }))]),
  );
  return Type.Union([Type.Object(properties, { additionalProperties: true }), Type.Null()], {
    description: 'The filter as JSON values; optional, the query string alone will do',
  });
}

/** The query string and the POST body of one actors endpoint. */
function filterSchemas(fields: Fields) {
  return { querystring: filterQuery(fields), body: filterBody(fields) };
}

export const ActorFilters = {
  trends: filterSchemas(TRENDS),
  stickiness: filterSchemas(STICKINESS),
  lifecycle: filterSchemas(LIFECYCLE),
  retention: filterSchemas(RETENTION),
  funnel: filterSchemas(FUNNEL_STEP),
  correlation: filterSchemas(CORRELATION),
  path: filterSchemas(PATH),
};

/** Every actors answer but retention's: the page's people, the links, persons no longer there. */
export const PeopleEnvelope = Type.Object({
  results: Type.Array(
    Type.Object({
      people: Type.Array(Person, { description: 'Trends add value_at_data_point to each' }),
      count: Type.Integer({ description: 'People on this page' }),
    }),
  ),
  next: Nullable(Type.String({ description: "The next page, with a POST body's parameters in its query string; null on the last" })),
  initial: Type.String({ description: 'The first page' }),
  missing_persons: Type.Integer({ description: 'Actors of the page whose person was deleted since' }),
  is_cached: Type.Boolean(),
  last_refresh: Type.String({ format: 'date-time' }),
});

/** Retention's answer: singular `result`, rows of an actor and the intervals it returned in. */
export const RetentionEnvelope = Type.Object({
  result: Type.Array(
    Type.Object({
      person: Type.Object({}, { additionalProperties: true, description: 'The person, or the group when the table counts groups' }),
      appearances: Type.Array(Type.Integer(), { description: '1 where the actor returned in that interval of the row, else 0' }),
    }),
  ),
  next: Nullable(Type.String({ description: 'The next page; null on the last' })),
  missing_persons: Type.Integer({ description: 'Actors of the page no longer there' }),
});

export type PeopleEnvelope = Static<typeof PeopleEnvelope>;
export type RetentionEnvelope = Static<typeof RetentionEnvelope>;
