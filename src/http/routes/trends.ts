import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../context.js';
import { filterDates, type DateRangeInput } from '../../query/date-range.js';
import { mergeRequestInput, parseInsightFilter, trendEndpointInsight, type RawInput } from '../../insights/filter-model.js';
import { legacyLifecycle } from '../../insights/lifecycle/lifecycle-legacy.js';
import { legacyStickiness } from '../../insights/stickiness/stickiness-legacy.js';
import { trendCsv } from '../../insights/trends/trend-csv.js';
import type { SeriesItem } from '../../insights/trends/trend-series.js';
import type { Project } from '../../projects/project.js';
import { textOf } from '../../util/text.js';
import { requireProject } from '../request-context.js';
import { projectClock } from '../../insights/actors/analysis-inputs.js';

const TrendParams = Type.Object({ project_id: Type.String() });

/** The filter parameters: text in a query string (lists and objects JSON-encoded), JSON values in a body. */
const FILTER_FIELDS: Record<string, string> = {
  insight: 'TRENDS (default), STICKINESS or LIFECYCLE',
  shown_as: 'Volume (default), Stickiness or Lifecycle',
  events: 'Event series: a list of {id, order, math, math_property, properties, custom_name}',
  actions: 'Action series: a list of {id, order, math, properties}',
  properties: 'Property filters: a list or a property group',
  filter_test_accounts: "true to leave out the project's test accounts",
  date_from: 'Absolute or relative (-7d, mStart) date, or all',
  date_to: 'Absolute or relative date; default now',
  interval: 'hour, day (default), week or month',
  display: 'ActionsLineGraph (default), ActionsTable, ActionsLineGraphCumulative…',
  breakdown: 'Trends: a property name, or cohort ids',
  breakdown_type: 'Trends: event, person, group, session or cohort',
  compare: 'Trends and stickiness: also the previous period',
  formula: 'Trends: a formula over the series letters, such as A + B',
};

const TrendQuery = Type.Object(
  {
    ...Object.fromEntries(Object.entries(FILTER_FIELDS).map(([key, description]) => [key, Type.Optional(Type.String({ description }))])),
    format: Type.Optional(Type.String({ description: 'csv for one CSV row per series' })),
  },
  { additionalProperties: true },
);
const TrendBody = Type.Union([
  Type.Object(Object.fromEntries(Object.entries(FILTER_FIELDS).map(([key, description]) => [key, Type.Optional(Type.Unknown({ description }))])), {
    additionalProperties: true,
  }),
  Type.Null(),
]);

/** The keys every series starts with, in PostHog's order; each kind adds its own after them. */
const SeriesResult = Type.Object(
  {
    action: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'The series (Entity.to_dict()); formulas have none' })),
    // Optional for the serializer only, which writes required keys before optional ones: every series has them.
    label: Type.Optional(Type.String()),
    count: Type.Optional(Type.Number()),
    data: Type.Optional(Type.Array(Type.Union([Type.Number(), Type.Null()]))),
    labels: Type.Optional(Type.Array(Type.String())),
    days: Type.Optional(Type.Array(Type.Union([Type.String(), Type.Number()]), { description: 'Bucket dates; stickiness: numbers of intervals' })),
  },
  {
    additionalProperties: true,
    description:
      'Trends add persons_urls, filter, breakdown_value, aggregated_value, compare_label; lifecycle status (new, returning, resurrecting, dormant) and persons_urls; stickiness filter and persons_urls',
  },
);

const TrendResponse = Type.Object({
  result: Type.Array(SeriesResult),
  is_cached: Type.Boolean(),
  last_refresh: Type.String({ format: 'date-time' }),
  timezone: Type.String(),
  next: Type.Union([Type.String(), Type.Null()]),
});

function wantsCsv(request: FastifyRequest): boolean {
  const query = request.query as RawInput;
  return query.format === 'csv' || (request.headers.accept ?? '').includes('text/csv');
}

/**
 * PostHog pages breakdown values with `offset`: `next` is set when the result is as long as the
 * page (breakdown_limit of the query string, 25 by default).
 */
function nextUrl(request: FastifyRequest, resultLength: number, offset: number): string | null {
  const query = request.query as RawInput;
  const limit = /^\d+$/.test(textOf(query.breakdown_limit ?? '')) ? Number(query.breakdown_limit) : 25;
  if (limit <= 0 || resultLength < limit) return null;
  const url = new URL(request.url, `${request.protocol}://${request.host}`);
  url.searchParams.set('offset', String(offset + limit));
  return url.toString();
}

function csvFilename(project: Project, dates: DateRangeInput, query: RawInput): string {
  const bounds = filterDates(dates, projectClock(project));
  const name = typeof query.export_name === 'string' && query.export_name !== '' ? query.export_name : 'export';
  const from = bounds.from ? `${bounds.from.toFormat('yyyy-MM-dd')} -` : 'up until';
  return `${name.replace(/[^\w\s-]/g, '').trim()} (${from} ${bounds.to.toFormat('yyyy-MM-dd')}) from PostHog.csv`;
}

/** What one request computes: its series, the CSV rows of them, its dates and its `next` page. */
interface TrendAnswer {
  result: object[];
  csvSeries: SeriesItem[];
  dates: DateRangeInput;
  next: string | null;
}

/** Trends, or the stickiness or lifecycle PostHog serves on the same endpoint, each by its runner. */
async function answer(context: AppContext, request: FastifyRequest, project: Project, input: RawInput): Promise<TrendAnswer> {
  switch (trendEndpointInsight(input)) {
    case 'LIFECYCLE': {
      const { items, filter } = await legacyLifecycle(context.lifecycle, project, input);
      return { result: items, csvSeries: items, dates: filter.dates, next: null };
    }
    case 'STICKINESS': {
      const { items, filter } = await legacyStickiness(context.stickiness, project, input);
      const csvSeries = items.map((item) => ({ ...item, days: item.days.map(String) }));
      return { result: items, csvSeries, dates: filter.dates, next: null };
    }
    case 'TRENDS': {
      const filter = parseInsightFilter(input);
      const items = await context.trends.run(project, filter);
      return { result: items, csvSeries: items, dates: filter.dates, next: nextUrl(request, items.length, filter.offset) };
    }
  }
}

export async function trendRoutes(app: FastifyInstance, context: AppContext): Promise<void> {
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const project = requireProject(request);
    const query = request.query as RawInput;
    const computed = await answer(context, request, project, mergeRequestInput(query, request.body));
    if (wantsCsv(request)) {
      return reply
        .type('text/csv; charset=utf-8')
        .header('Content-Disposition', `attachment; filename="${csvFilename(project, computed.dates, query)}"`)
        .send(trendCsv(computed.csvSeries));
    }
    return {
      result: computed.result,
      is_cached: false,
      last_refresh: new Date().toISOString(),
      timezone: project.timezone,
      next: computed.next,
    };
  };
  const schema = {
    description:
      'Legacy insight results: trends, or stickiness (insight=STICKINESS or shown_as=Stickiness) and lifecycle (insight=LIFECYCLE or shown_as=Lifecycle)',
    params: TrendParams,
    querystring: TrendQuery,
    response: { 200: TrendResponse },
  };
  const options = { config: { scopes: ['insight:read' as const] } };
  app.get('/api/projects/:project_id/insights/trend/', { ...options, schema }, handler);
  app.post('/api/projects/:project_id/insights/trend/', { ...options, schema: { ...schema, body: TrendBody } }, handler);
}
