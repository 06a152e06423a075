import { ValidationError } from '../errors.js';
import type { JsonObject } from './saved-insight.js';
import { isJsonObject as isObject } from '../util/json.js';

/**
 * The `query` of a saved insight: which node kinds it may hold, the wrapping PostHog's MCP
 * serializer applies, and the insight type the list's `insight` filter matches.
 */

/** Insight query kinds and the legacy insight type each one is. */
export const INSIGHT_QUERY_KINDS: Record<string, string> = {
  TrendsQuery: 'TRENDS',
  FunnelsQuery: 'FUNNELS',
  RetentionQuery: 'RETENTION',
  PathsQuery: 'PATHS',
  StickinessQuery: 'STICKINESS',
  LifecycleQuery: 'LIFECYCLE',
};

export const INSIGHT_TYPES = ['TRENDS', 'FUNNELS', 'RETENTION', 'PATHS', 'STICKINESS', 'LIFECYCLE', 'JSON', 'SQL'] as const;

/** What a DataTableNode may show. */
const DATA_TABLE_SOURCES = new Set([
  'EventsQuery',
  'HogQLQuery',
  'ActorsQuery',
  'PersonsNode',
  'EventsNode',
  'ActionsNode',
  'GroupsQuery',
  'InsightActorsQuery',
  'FunnelsActorsQuery',
  'SessionsQuery',
]);

const WRAPPERS = new Set(['InsightVizNode', 'DataTableNode', 'DataVisualizationNode']);

function kindOf(node: JsonObject, path: string): string {
  if (typeof node.kind !== 'string' || node.kind === '') throw new ValidationError(`${path}.kind`, 'This field is required.', 'required');
  return node.kind;
}

function checkSource(node: JsonObject, allowed: (kind: string) => boolean, expected: string): void {
  if (!isObject(node.source)) throw new ValidationError('query.source', `A ${String(node.kind)} needs a source object.`);
  const kind = kindOf(node.source, 'query.source');
  if (!allowed(kind)) throw new ValidationError('query.source.kind', `"${kind}" is not a valid source of a ${String(node.kind)}: ${expected}.`);
}

/**
 * Validates a `query` (null and `{}` mean none). With `mcp` (PostHog's MCP client) a bare
 * insight kind is wrapped in an InsightVizNode and a bare HogQLQuery in a DataVisualizationNode.
 */
export function parseInsightQuery(value: unknown, mcp: boolean): JsonObject | null {
  if (value === null || (isObject(value) && Object.keys(value).length === 0)) return null;
  if (!isObject(value)) throw new ValidationError('query', 'Query must be a valid JSON object');
  const kind = kindOf(value, 'query');
  if (mcp && kind in INSIGHT_QUERY_KINDS) return { kind: 'InsightVizNode', source: value };
  if (mcp && kind === 'HogQLQuery') return { kind: 'DataVisualizationNode', source: value };
  if (kind in INSIGHT_QUERY_KINDS) return value;
  switch (kind) {
    case 'InsightVizNode':
      checkSource(value, (source) => source in INSIGHT_QUERY_KINDS, Object.keys(INSIGHT_QUERY_KINDS).join(', '));
      return value;
    case 'DataTableNode':
      checkSource(value, (source) => DATA_TABLE_SOURCES.has(source), [...DATA_TABLE_SOURCES].join(', '));
      return value;
    case 'DataVisualizationNode':
      checkSource(value, (source) => source === 'HogQLQuery', 'HogQLQuery');
      return value;
    default:
      throw new ValidationError('query.kind', `"${kind}" is not a kind a saved insight can hold.`);
  }
}

/** The node that computes: the source of a wrapper, else the query itself, with its dotted path. */
export function computingNode(query: JsonObject): { node: JsonObject; path: string } {
  if (WRAPPERS.has(String(query.kind)) && isObject(query.source)) return { node: query.source, path: 'query.source' };
  return { node: query, path: 'query' };
}

/** The legacy insight type of a stored insight, as the list's `insight` filter matches it. */
export function insightKind(query: JsonObject | null, filters: JsonObject): string {
  if (query === null) {
    const insight = typeof filters.insight === 'string' ? filters.insight.toUpperCase() : 'TRENDS';
    return insight;
  }
  const { node } = computingNode(query);
  const kind = String(node.kind);
  if (kind === 'HogQLQuery' && node !== query) return 'SQL';
  return INSIGHT_QUERY_KINDS[kind] ?? 'JSON';
}
