import type { JsonObject } from '../trends/filter-echo.js';

/**
 * The persons URL of one data point of a lifecycle or stickiness insight, as PostHog builds it:
 * the filter's parameters with the data point's own set over them (objects as JSON, nulls left
 * out), on the project's persons endpoint of that insight.
 */
export function insightPersonsUrl(projectId: number, endpoint: 'lifecycle' | 'stickiness', filterJson: JsonObject, point: JsonObject): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries({ ...filterJson, ...point })) {
    if (value === null || value === undefined) continue;
    query.set(key, typeof value === 'object' ? JSON.stringify(value) : String(value));
  }
  return `api/projects/${projectId}/persons/${endpoint}/?${query.toString()}`;
}
