import { Type, type TSchema } from 'typebox';
import { Nullable } from './common-schemas.js';

/**
 * `limit`/`offset` as the query string carries them: text, judged by readPage so that a bad value
 * is PostHog's 400 naming the parameter.
 */
export function pageQueryFields(defaultLimit: number, maxLimit: number) {
  return {
    limit: Type.Optional(Type.String({ description: `Page size, default ${defaultLimit}, at most ${maxLimit} (larger values are clamped)` })),
    offset: Type.Optional(Type.String({ description: 'Rows to skip, default 0' })),
  };
}

/** DRF's limit/offset envelope; `next` and `previous` are absolute URLs. */
export function pageEnvelope<T extends TSchema>(item: T) {
  return Type.Object({
    count: Type.Integer({ description: 'Rows matching, over every page' }),
    next: Nullable(Type.String({ description: 'The next page, null on the last' })),
    previous: Nullable(Type.String({ description: 'The previous page, null on the first' })),
    results: Type.Array(item),
  });
}
