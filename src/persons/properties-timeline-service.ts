import { DateTime } from 'luxon';
import { parseDate, resolveDateRange, toWarehouseTime, type DateRangeInput, type Interval, type ProjectClock } from '../query/date-range.js';
import { EventSource } from '../query/event-source.js';
import { parseInsightFilter, type InsightFilter, type RawInput } from '../insights/filter-model.js';
import { flattenFilters } from '../query/property-filter-model.js';
import { noActions, type ActionSqlResolver } from '../query/resolvers.js';
import { SqlParams } from '../query/sql-params.js';
import type { Project } from '../projects/project.js';
import type { Warehouse } from '../storage/warehouse/warehouse.js';
import type { PersonKey } from './person-id.js';
import type { PersonRepository } from './person-repository.js';
import type { PersonService } from './person-service.js';
import { projectClock } from '../insights/actors/analysis-inputs.js';

export interface TimelinePoint {
  timestamp: string;
  properties: Record<string, unknown>;
  relevant_event_count: number;
}

export interface PropertiesTimeline {
  points: TimelinePoint[];
  crucial_property_keys: string[];
  effective_date_from: string;
  effective_date_to: string;
}

const ONE_INTERVAL: Record<Interval, object> = { hour: { hours: 1 }, day: { days: 1 }, week: { weeks: 1 }, month: { months: 1 } };

/** Person-property keys whose changes make a new point: from the filters, the series and a person breakdown. */
function crucialKeys(filter: InsightFilter): string[] {
  const filters = [filter.properties, ...filter.entities.map((entity) => entity.properties)].flatMap(flattenFilters);
  const keys = new Set(filters.filter((item) => item.type === 'person').map((item) => item.key));
  if (filter.breakdown?.type === 'person' && filter.breakdown.property !== '') keys.add(filter.breakdown.property);
  return [...keys].sort();
}

/** The legacy modal's single data point: `date_from == date_to` means one interval from there. */
function expandSinglePoint(dates: DateRangeInput, clock: ProjectClock): DateRangeInput {
  if (dates.dateFrom === null || dates.dateFrom !== dates.dateTo) return dates;
  const start = parseDate(dates.dateFrom, clock.timezone, clock.now);
  if (!start) return dates;
  const end = start.at.plus(ONE_INTERVAL[dates.interval]).minus({ milliseconds: 1 });
  return { ...dates, dateTo: end.toISO({ includeOffset: true }) };
}

/** Python's `isoformat()`: microseconds only when non-zero, the offset as `+00:00`. */
function pythonIso(at: DateTime): string {
  const fraction = at.millisecond === 0 ? '' : at.millisecond === 999 && at.second === 59 ? '.999999' : `.${at.toFormat('SSS')}000`;
  return `${at.toFormat("yyyy-MM-dd'T'HH:mm:ss")}${fraction}${at.toFormat('ZZ')}`;
}

/** A warehouse UTC time as `2020-01-01T00:00:00Z` (microseconds when non-zero). */
function utcIso(text: string): string {
  const [date, time = '00:00:00'] = text.split(' ');
  const [clock, micros = ''] = time.split('.');
  return `${date}T${clock}${/^0*$/.test(micros) ? '' : `.${micros}`}Z`;
}

/**
 * `GET /persons/:id/properties_timeline`: how the person's properties looked on its events over
 * a range, from the snapshot each event stored at ingestion. A point starts at the first event
 * and wherever one of the crucial properties changed; it counts the events up to the next point.
 */
export class PropertiesTimelineService {
  constructor(
    private readonly persons: PersonService,
    private readonly personRepository: PersonRepository,
    private readonly warehouse: Warehouse,
    private readonly actions: ActionSqlResolver = noActions,
  ) {}

  /** `input`: the legacy insight filter of the data point, as its query string gives it. */
  async timeline(project: Project, key: PersonKey, input: RawInput): Promise<PropertiesTimeline> {
    const person = await this.persons.find(project, key);
    const distinctIds = await this.personRepository.distinctIdsOf(person.id);
    const filter = parseInsightFilter(input);
    const clock = projectClock(project);
    const dates = expandSinglePoint(filter.dates, clock);
    const earliest = dates.dateFrom === 'all' ? await this.earliestEvent(project.id, distinctIds, clock.timezone) : null;
    const range = resolveDateRange(dates, clock, earliest);
    const keys = crucialKeys(filter);

    const params = new SqlParams({ team_id: project.id });
    const from = toWarehouseTime(range.from);
    const to = toWarehouseTime(range.to);
    const source = new EventSource(params, { from, to });
    const series: string[] = [];
    for (const entity of filter.entities) {
      if (entity.type === 'events') {
        series.push(entity.id === null ? '1' : `e.event = ${params.add(String(entity.id), 'String')}`);
      } else {
        const action = await this.actions.resolve(Number(entity.id), source, params);
        series.push(action ? `(${action.condition})` : '0');
      }
    }
    const crucial = keys.length === 0 ? '0' : `[${keys.map((item) => `JSONExtractRaw(e.person_properties, ${params.add(item, 'String')})`).join(', ')}]`;
    const conditions = [
      'e.team_id = {team_id:Int64}',
      `e.timestamp >= ${params.add(from, "DateTime64(6, 'UTC')")}`,
      `e.timestamp <= ${params.add(to, "DateTime64(6, 'UTC')")}`,
      `e.distinct_id IN ${params.add(distinctIds, 'Array(String)')}`,
      ...(series.length > 0 ? [`(${series.join(' OR ')})`] : []),
    ];
    const rows = await this.warehouse.query<{ event_time: string; snapshot: string; relevant_event_count: string | number }>(
      `SELECT event_time, snapshot, if(next_position = 0, total + 1, next_position) - position AS relevant_event_count
       FROM (
         SELECT event_time, snapshot, position, total,
                leadInFrame(position) OVER (ORDER BY position ROWS BETWEEN CURRENT ROW AND 1 FOLLOWING) AS next_position
         FROM (
           SELECT event_time, snapshot, crucial_values,
                  row_number() OVER ordered AS position,
                  lagInFrame(crucial_values) OVER ordered AS previous_values,
                  count() OVER () AS total
           FROM (
             SELECT toString(e.timestamp) AS event_time, e.person_properties AS snapshot, ${crucial} AS crucial_values,
                    e.timestamp AS event_timestamp, e.uuid AS event_uuid
             ${source.fromClause()}
             WHERE ${conditions.join(' AND ')}
           )
           WINDOW ordered AS (ORDER BY event_timestamp, event_uuid ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
         )
         WHERE position = 1 OR crucial_values != previous_values
       )
       ORDER BY position`,
      params.all,
    );
    return {
      points: rows.map((row) => ({
        timestamp: utcIso(row.event_time),
        properties: JSON.parse(row.snapshot) as Record<string, unknown>,
        relevant_event_count: Number(row.relevant_event_count),
      })),
      crucial_property_keys: keys,
      effective_date_from: pythonIso(range.from),
      effective_date_to: pythonIso(range.to),
    };
  }

  private async earliestEvent(teamId: number, distinctIds: string[], timezone: string): Promise<DateTime | null> {
    const [row] = await this.warehouse.query<{ first_time: string | null }>(
      `SELECT toString(min(timestamp)) AS first_time FROM events
       WHERE team_id = {team_id:Int64} AND distinct_id IN {ids:Array(String)} HAVING count() > 0`,
      { team_id: teamId, ids: distinctIds },
    );
    return row?.first_time ? DateTime.fromSQL(row.first_time, { zone: 'UTC' }).setZone(timezone) : null;
  }
}
