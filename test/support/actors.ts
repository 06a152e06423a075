import assert from 'node:assert/strict';
import type { ApiResponse } from './tally.js';

/** A query string of analysis parameters; objects and lists are JSON-encoded as PostHog's clients send them. */
export function actorQuery(params: Record<string, unknown>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined) continue;
    search.set(key, typeof value === 'object' ? JSON.stringify(value) : String(value));
  }
  return search.toString();
}

/** The first distinct id of every person of a `{results: [{people}]}` answer, in answer order. */
export function peopleIds(response: ApiResponse): string[] {
  assert.equal(response.status, 200, response.text);
  const [entry] = response.body.results as Array<{ people: Array<{ distinct_ids: string[] }>; count: number }>;
  assert.ok(entry);
  assert.equal(entry.count, entry.people.length);
  return entry.people.map((person) => person.distinct_ids[0]!);
}

/** The same, sorted: for data points whose persons tie. */
export function sortedPeopleIds(response: ApiResponse): string[] {
  return peopleIds(response).sort();
}
