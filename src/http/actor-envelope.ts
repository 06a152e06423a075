import type { FastifyRequest } from 'fastify';
import type { ActorList } from '../insights/actors/actor-list.js';
import type { ActorPage } from '../insights/actors/actor-page.js';

/** The request's absolute URL. */
function currentUrl(request: FastifyRequest): URL {
  return new URL(request.url, `${request.protocol}://${request.host}`);
}

/**
 * The next page of an actors answer: the same URL with the offset moved on by the limit. As in
 * PostHog it exists when the page came back full, and it carries only what the URL carried
 * (parameters sent in a POST body are not in it). `limitKey` is set for the endpoints whose
 * links carry the limit too.
 */
export function nextActorsUrl(
  request: FastifyRequest,
  page: ActorPage,
  full: boolean,
  keys: { offset: string; limit?: string } = { offset: 'offset' },
): string | null {
  if (!full) return null;
  const url = currentUrl(request);
  url.searchParams.set(keys.offset, String(page.offset + page.limit));
  if (keys.limit) url.searchParams.set(keys.limit, String(page.limit));
  return url.toString();
}

/** persons.md §2.15: the envelope of funnel, funnel/correlation, path and trends actors. */
export function peopleEnvelope(request: FastifyRequest, list: ActorList, next: string | null) {
  return {
    results: [{ people: list.people, count: list.people.length }],
    next,
    initial: currentUrl(request).toString(),
    missing_persons: list.missingPersons,
    is_cached: false,
    last_refresh: new Date().toISOString(),
  };
}

/** The shorter envelope of lifecycle and stickiness actors. */
export function shortPeopleEnvelope(list: ActorList, next: string | null) {
  return { results: [{ people: list.people, count: list.people.length }], next };
}
