import { pythonIsoformat } from '../trends/persons-urls.js';
import { propertyGroupToJson, type JsonObject } from '../trends/filter-echo.js';
import type { SeriesEntity } from '../filter-model.js';
import { periodName, type RetentionFilter } from './retention-filter.js';
import type { RetentionResult, RetentionRow } from './retention-runner.js';

function entityToJson(entity: SeriesEntity): JsonObject {
  const json: JsonObject = { id: entity.id, type: entity.type, name: entity.name };
  if (entity.properties.values.length > 0) json.properties = propertyGroupToJson(entity.properties);
  return json;
}

/**
 * The filter as the parameters of a persons URL: enough for `/persons/retention` to rebuild the
 * same window (date_to as resolved, so a relative or absent date_to keeps meaning the same
 * moment) and the same actors.
 */
export function retentionFilterParams(filter: RetentionFilter): JsonObject {
  const params: JsonObject = {
    insight: 'RETENTION',
    date_to: filter.dateTo.toISO({ suppressMilliseconds: true }),
    period: periodName(filter.period),
    total_intervals: filter.totalIntervals,
    retention_type: filter.firstTime ? 'retention_first_time' : 'retention_recurring',
    target_entity: entityToJson(filter.target),
    returning_entity: entityToJson(filter.returning),
  };
  if (filter.properties.values.length > 0) params.properties = propertyGroupToJson(filter.properties);
  if (filter.filterTestAccounts) params.filter_test_accounts = true;
  if (filter.breakdowns.length > 0) {
    params.breakdowns = filter.breakdowns.map((breakdown) => ({
      property: breakdown.property,
      type: breakdown.type,
      ...(breakdown.groupTypeIndex === null ? {} : { group_type_index: breakdown.groupTypeIndex }),
    }));
  }
  if (filter.aggregationGroupTypeIndex !== null) params.aggregation_group_type_index = filter.aggregationGroupTypeIndex;
  return params;
}

function encode(params: JsonObject): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === null || value === undefined) continue;
    search.set(key, typeof value === 'object' ? JSON.stringify(value) : String(value));
  }
  return search.toString();
}

/** The persons URL of a row (`breakdown_values`) or of one data point of it (and `selected_interval`). */
function personsUrl(projectId: number, params: JsonObject, rowKey: unknown[], interval: number | null): string {
  const extra: JsonObject = { ...params, breakdown_values: rowKey };
  if (interval === null) extra.display = 'ActionsTable';
  else extra.selected_interval = interval;
  return `/api/projects/${projectId}/persons/retention/?${encode(extra)}`;
}

function rowKey(row: RetentionRow): unknown[] {
  return row.breakdownValues ?? [row.cohort];
}

/**
 * PostHog's legacy retention table: the cohort table is a triangle (cohort c
 * has total − c values) labelled `<Period> c` with the cohort's start date; breakdown rows hold
 * every interval and are labelled by their values joined with `::`. A value with actors carries
 * the URL of its actors, a row the URL of its members.
 */
export function legacyRetentionResult(projectId: number, filter: RetentionFilter, result: RetentionResult): JsonObject[] {
  const params = retentionFilterParams(filter);
  return result.rows.map((row) => {
    const key = rowKey(row);
    const length = row.cohort === null ? filter.totalIntervals : filter.totalIntervals - row.cohort;
    const values = row.counts.slice(0, length).map((count, interval) => {
      const value: JsonObject = { count, people: [] };
      if (count > 0) value.people_url = personsUrl(projectId, params, key, interval);
      return value;
    });
    if (row.breakdownValues !== null) {
      return { values, label: row.breakdownValues.join('::'), breakdown_values: row.breakdownValues, people_url: personsUrl(projectId, params, key, null) };
    }
    return {
      values,
      label: `${periodName(filter.period)} ${row.cohort}`,
      date: pythonIsoformat(row.date!),
      people_url: personsUrl(projectId, params, key, null),
    };
  });
}
