import type { FastifyRequest } from 'fastify';
import { ValidationError } from '../errors.js';
import { safeInteger } from '../util/safe-integer.js';
import { textOf } from '../util/text.js';

/** Page-number paging (`page` from 1, `limit`), as PostHog's activity endpoints use it. */
export interface NumberedPage {
  page: number;
  limit: number;
}

function positiveInteger(value: unknown, attr: string, fallback: number): number {
  const text = Array.isArray(value) ? value[value.length - 1] : value;
  if (text === undefined || text === '') return fallback;
  if (!/^\d+$/.test(textOf(text)) || Number(text) < 1) {
    throw new ValidationError(attr, 'A valid positive integer is required.', 'invalid');
  }
  return safeInteger(textOf(text));
}

export function readNumberedPage(query: Record<string, unknown>, options: { defaultLimit: number; maxLimit: number }): NumberedPage {
  const limit = Math.min(positiveInteger(query.limit, 'limit', options.defaultLimit), options.maxLimit);
  return { page: positiveInteger(query.page, 'page', 1), limit };
}

function numberedPageUrl(request: FastifyRequest, page: NumberedPage): string {
  const url = new URL(request.url, `${request.protocol}://${request.host}`);
  url.searchParams.set('page', String(page.page));
  url.searchParams.set('limit', String(page.limit));
  return url.toString();
}

export interface NumberedEnvelope<T> {
  results: T[];
  next: string | null;
  previous: string | null;
  total_count: number;
}

export function numberedEnvelope<T>(request: FastifyRequest, page: NumberedPage, total: number, results: T[]): NumberedEnvelope<T> {
  return {
    results,
    next: page.page * page.limit < total ? numberedPageUrl(request, { ...page, page: page.page + 1 }) : null,
    previous: page.page > 1 ? numberedPageUrl(request, { ...page, page: page.page - 1 }) : null,
    total_count: total,
  };
}
