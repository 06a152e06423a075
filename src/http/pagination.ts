import type { FastifyRequest } from 'fastify';
import { ValidationError } from '../errors.js';
import { safeInteger } from '../util/safe-integer.js';
import { textOf } from '../util/text.js';

export interface Page {
  limit: number;
  offset: number;
}

export interface PageOptions {
  defaultLimit: number;
  maxLimit: number;
}

function nonNegativeInteger(value: unknown, attr: string): number | undefined {
  if (value === undefined || value === '') return undefined;
  const text = textOf(value);
  if (!/^\d+$/.test(text)) throw new ValidationError(attr, 'A valid integer is required.', 'invalid');
  return safeInteger(text);
}

/** Reads `limit`/`offset`; a limit above the maximum is clamped, never an error. */
export function readPage(query: Record<string, unknown>, options: PageOptions): Page {
  const limit = nonNegativeInteger(query.limit, 'limit');
  const offset = nonNegativeInteger(query.offset, 'offset') ?? 0;
  const effective = limit === undefined || limit === 0 ? options.defaultLimit : Math.min(limit, options.maxLimit);
  return { limit: effective, offset };
}

/** The request's own absolute URL with `limit`/`offset` replaced, as DRF's pagination links are. */
export function pageUrl(request: FastifyRequest, page: Page): string {
  const url = new URL(request.url, `${request.protocol}://${request.host}`);
  url.searchParams.set('limit', String(page.limit));
  url.searchParams.set('offset', String(page.offset));
  return url.toString();
}

export interface Envelope<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

export function envelope<T>(request: FastifyRequest, page: Page, count: number, results: T[]): Envelope<T> {
  const hasNext = page.offset + results.length < count && results.length > 0;
  return {
    count,
    next: hasNext ? pageUrl(request, { limit: page.limit, offset: page.offset + page.limit }) : null,
    previous: page.offset > 0 ? pageUrl(request, { limit: page.limit, offset: Math.max(0, page.offset - page.limit) }) : null,
    results,
  };
}
