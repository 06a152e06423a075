import type { FastifyRequest } from 'fastify';
import type { ActorList } from '../insights/actors/actor-list.js';
import type { ActorPage } from '../insights/actors/actor-page.js';
import { isJsonObject } from '../util/json.js';
import type { PeopleEnvelope } from './schemas/person-actor-schemas.js';

/** The parameters an actors request pages with: `offset`/`limit`, or the correlation endpoint's own names. */
export interface PageKeys {
  offset: string;
  limit: string;
}

export const PAGE_KEYS: PageKeys = { offset: 'offset', limit: 'limit' };

/**
 * The URL of a page of this actors request: its own URL with every parameter of a POST body
 * added (JSON-encoded where it is not text, as a query string carries it), and the page's offset
 * and limit. A personal API key sent in the body stays out of it.
 */
function pageUrl(request: FastifyRequest, offset: number, limit: number, keys: PageKeys): string {
  const url = new URL(request.url, `${request.protocol}://${request.host}`);
  if (isJsonObject(request.body)) {
    for (const [key, value] of Object.entries(request.body)) {
      if (key === 'personal_api_key' || value === undefined || value === null) continue;
      url.searchParams.set(key, typeof value === 'string' ? value : JSON.stringify(value));
    }
  }
  url.searchParams.set(keys.offset, String(offset));
  url.searchParams.set(keys.limit, String(limit));
  return url.toString();
}

/** `next`: the following page while the query found more actors; `initial`: the first page. */
export function actorsLinks(request: FastifyRequest, page: ActorPage, hasMore: boolean, keys: PageKeys = PAGE_KEYS) {
  return {
    next: hasMore ? pageUrl(request, page.offset + page.limit, page.limit, keys) : null,
    initial: pageUrl(request, 0, page.limit, keys),
  };
}

/** The envelope of every actors answer but retention's: the page's people, the links, persons no longer there. */
export function peopleEnvelope(request: FastifyRequest, list: ActorList, keys: PageKeys = PAGE_KEYS): PeopleEnvelope {
  const { next, initial } = actorsLinks(request, list.page, list.hasMore, keys);
  return {
    results: [{ people: list.people, count: list.people.length }],
    next,
    initial,
    missing_persons: list.missingPersons,
    is_cached: false,
    last_refresh: new Date().toISOString(),
  };
}
