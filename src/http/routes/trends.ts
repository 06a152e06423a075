import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { DateTime } from 'luxon';
import type { AppContext } from '../../context.js';
import { filterDates } from '../../query/date-range.js';
import { mergeRequestInput, parseInsightFilter, type InsightFilter, type RawInput } from '../../insights/filter-model.js';
import { trendCsv } from '../../insights/trends/trend-csv.js';
import type { Project } from '../../projects/project.js';
import { textOf } from '../../util/text.js';
import { requireProject } from '../request-context.js';

const TrendParams = Type.Object({ project_id: Type.String() });

function wantsCsv(request: FastifyRequest): boolean {
  const query = request.query as RawInput;
  return query.format === 'csv' || (request.headers.accept ?? '').includes('text/csv');
}

/**
 * PostHog pages breakdown values with `offset`: `next` is set when the result is as long as the
 * page (breakdown_limit of the query string, 25 by default).
 */
function nextUrl(request: FastifyRequest, resultLength: number, filter: InsightFilter): string | null {
  const query = request.query as RawInput;
  const limit = /^\d+$/.test(textOf(query.breakdown_limit ?? '')) ? Number(query.breakdown_limit) : 25;
  if (limit <= 0 || resultLength < limit) return null;
  const url = new URL(request.url, `${request.protocol}://${request.host}`);
  url.searchParams.set('offset', String(filter.offset + limit));
  return url.toString();
}

function csvFilename(project: Project, filter: InsightFilter, query: RawInput): string {
  const dates = filterDates(filter.dates, { timezone: project.timezone, weekStartDay: project.weekStartDay ?? 0, now: DateTime.now() });
  const name = typeof query.export_name === 'string' && query.export_name !== '' ? query.export_name : 'export';
  const from = dates.from ? `${dates.from.toFormat('yyyy-MM-dd')} -` : 'up until';
  return `${name.replace(/[^\w\s-]/g, '').trim()} (${from} ${dates.to.toFormat('yyyy-MM-dd')}) from PostHog.csv`;
}

export async function trendRoutes(app: FastifyInstance, context: AppContext): Promise<void> {
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const project = requireProject(request);
    const query = request.query as RawInput;
    const filter = parseInsightFilter(mergeRequestInput(query, request.body));
    const result = await context.trends.run(project, filter);
    if (wantsCsv(request)) {
      return reply
        .type('text/csv; charset=utf-8')
        .header('Content-Disposition', `attachment; filename="${csvFilename(project, filter, query)}"`)
        .send(trendCsv(result));
    }
    return {
      result,
      is_cached: false,
      last_refresh: new Date().toISOString(),
      timezone: project.timezone,
      next: nextUrl(request, result.length, filter),
    };
  };
  const options = { schema: { params: TrendParams }, config: { scopes: ['insight:read' as const] } };
  app.get('/api/projects/:project_id/insights/trend/', options, handler);
  app.post('/api/projects/:project_id/insights/trend/', options, handler);
}
