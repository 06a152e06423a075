import { ValidationError } from '../errors.js';
import { textOf } from '../util/text.js';
import { INSIGHT_TYPES } from './insight-query-node.js';

export const INSIGHT_ORDER_COLUMNS = ['id', 'created_at', 'last_modified_at', 'name'] as const;
export type InsightOrderColumn = (typeof INSIGHT_ORDER_COLUMNS)[number];

/** The insight list's filters and order, from its query string. */
export interface InsightListQuery {
  shortId: string | null;
  /** Case-insensitive substring of name, derived_name or description. */
  search: string | null;
  /** true: saved or on a dashboard; false: not saved (on a dashboard or not, as PostHog). */
  saved: boolean | null;
  favorited: boolean | null;
  /** Dashboard ids the insight must be on, every one of them. */
  dashboards: number[];
  /** Creator user ids, any of them. */
  createdBy: number[];
  kind: string | null;
  /** Null: `-last_modified_at, -id`. */
  order: { column: InsightOrderColumn; descending: boolean } | null;
}

const TRUE_WORDS = new Set(['true', '1', 'yes', 'y', 't', 'on']);
const FALSE_WORDS = new Set(['false', '0', 'no', 'n', 'f', 'off']);

/** A yes/no query parameter (`true`/`false`, `1`/`0`, …); absent or empty is null. */
export function parseFlag(value: unknown, attr: string): boolean | null {
  if (value === undefined || value === '') return null;
  const text = textOf(value).trim().toLowerCase();
  if (TRUE_WORDS.has(text)) return true;
  if (FALSE_WORDS.has(text)) return false;
  throw new ValidationError(attr, 'Must be a valid boolean.', 'invalid');
}

function parseJsonIds(value: unknown, attr: string): number[] {
  if (value === undefined || value === '') return [];
  let decoded: unknown;
  try {
    decoded = JSON.parse(textOf(value));
  } catch {
    throw new ValidationError(attr, `"${attr}" must be a JSON list of ids, such as [1, 2].`);
  }
  if (!Array.isArray(decoded) || !decoded.every((id) => typeof id === 'number' && Number.isSafeInteger(id))) {
    throw new ValidationError(attr, `"${attr}" must be a JSON list of ids, such as [1, 2].`);
  }
  return decoded as number[];
}

function parseOrder(value: unknown): InsightListQuery['order'] {
  if (value === undefined || value === '') return null;
  const text = textOf(value);
  const descending = text.startsWith('-');
  const column = descending ? text.slice(1) : text;
  if (!(INSIGHT_ORDER_COLUMNS as readonly string[]).includes(column)) {
    throw new ValidationError('order', `Order by one of ${INSIGHT_ORDER_COLUMNS.join(', ')}, with an optional "-" for descending.`);
  }
  return { column: column as InsightOrderColumn, descending };
}

export function parseInsightListQuery(query: Record<string, unknown>): InsightListQuery {
  const kind = query.insight === undefined || query.insight === '' ? null : textOf(query.insight).toUpperCase();
  if (kind !== null && !(INSIGHT_TYPES as readonly string[]).includes(kind)) {
    throw new ValidationError('insight', `"${textOf(query.insight)}" is not one of ${INSIGHT_TYPES.join(', ')}.`, 'invalid_choice');
  }
  const text = (value: unknown) => (value === undefined || value === '' ? null : textOf(value));
  return {
    shortId: text(query.short_id),
    search: text(query.search),
    saved: parseFlag(query.saved, 'saved'),
    favorited: parseFlag(query.favorited, 'favorited'),
    dashboards: parseJsonIds(query.dashboards, 'dashboards'),
    createdBy: parseJsonIds(query.created_by, 'created_by'),
    kind,
    order: parseOrder(query.order),
  };
}
