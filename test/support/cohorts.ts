import assert from 'node:assert/strict';
import type { TallyServer } from './tally.js';

export const COHORTS = '/api/projects/1/cohorts';
export const ACTIONS = '/api/projects/1/actions';

/** A moment `minutes` before now, as ISO text, for events placed relative to the current time. */
export function minutesAgo(minutes: number): string {
  return new Date(Date.now() - minutes * 60_000).toISOString();
}

export function daysAgo(days: number): string {
  return minutesAgo(days * 24 * 60);
}

export async function createCohort(server: TallyServer, body: Record<string, unknown>): Promise<any> {
  const response = await server.post(`${COHORTS}/`, body);
  assert.equal(response.status, 201, response.text);
  return response.body;
}

/** The first distinct id of every current member, sorted. */
export async function memberIds(server: TallyServer, cohortId: number): Promise<string[]> {
  const response = await server.get(`${COHORTS}/${cohortId}/persons/`);
  assert.equal(response.status, 200, response.text);
  return response.body.results.map((person: any) => person.distinct_ids[0]).sort();
}

/** A dynamic cohort defined by one AND group of these filters. */
export function definedBy(...values: unknown[]) {
  return { filters: { properties: { type: 'AND', values } } };
}
