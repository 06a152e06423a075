import { ValidationError } from '../errors.js';
import { isObject } from './node-fields.js';
import type { QueryKind, QueryNode } from './query-kind.js';

/** Nodes that show another node: they run their `source`. */
const WRAPPERS = new Set(['InsightVizNode', 'DataTableNode', 'DataVisualizationNode']);

/** Insight kinds an InsightVizNode may show. */
const INSIGHT_KINDS = new Set(['TrendsQuery', 'FunnelsQuery', 'RetentionQuery', 'PathsQuery', 'StickinessQuery', 'LifecycleQuery']);

/** PostHog kinds whose runners Tally does not have yet: a 400 that says so, not "unknown". */
const KINDS_WITHOUT_RUNNER = new Set(['InsightActorsQueryOptions', 'GroupsQuery', 'SessionsTimelineQuery', 'WebOverviewQuery']);

export interface DispatchedNode {
  kind: QueryKind;
  node: QueryNode;
  /** Where the computing node sits: `query`, or `query.source` under a wrapper. */
  path: string;
  /** The computing node's kind, e.g. `TrendsQuery`. */
  kindName: string;
}

function kindOf(node: QueryNode, path: string): string {
  const kind = node.kind;
  if (kind === undefined || kind === null) throw new ValidationError(`${path}.kind`, 'This field is required.', 'required');
  if (typeof kind !== 'string') throw new ValidationError(`${path}.kind`, 'Must be a string.');
  return kind;
}

/**
 * The query API's kinds, one module each, registered in one table; wrappers resolve to their
 * source. Kinds join by being added to the table.
 */
export class QueryDispatch {
  constructor(private readonly kinds: Readonly<Record<string, QueryKind>>) {}

  resolve(query: unknown): DispatchedNode {
    if (!isObject(query)) throw new ValidationError('query', 'Query must be a JSON object with a "kind".');
    const kind = kindOf(query, 'query');
    if (!WRAPPERS.has(kind)) return this.runnable(query, kind, 'query');
    const source = query.source;
    if (source === undefined || source === null) throw new ValidationError('query.source', `A ${kind} needs a source.`, 'required');
    if (!isObject(source)) throw new ValidationError('query.source', 'Must be a query object.');
    const sourceKind = kindOf(source, 'query.source');
    if (WRAPPERS.has(sourceKind)) throw new ValidationError('query.source.kind', `A ${kind} cannot show another ${sourceKind}.`);
    if (kind === 'InsightVizNode' && !INSIGHT_KINDS.has(sourceKind)) {
      throw new ValidationError('query.source.kind', `An InsightVizNode shows an insight (${[...INSIGHT_KINDS].join(', ')}), not a ${sourceKind}.`);
    }
    return this.runnable(source, sourceKind, 'query.source');
  }

  private runnable(node: QueryNode, kind: string, path: string): DispatchedNode {
    const runner = Object.hasOwn(this.kinds, kind) ? this.kinds[kind] : undefined;
    if (runner) return { kind: runner, node, path, kindName: kind };
    if (KINDS_WITHOUT_RUNNER.has(kind)) throw new ValidationError(`${path}.kind`, `Tally cannot run ${kind} queries yet.`);
    throw new ValidationError(
      `${path}.kind`,
      `Unknown query kind "${kind}". Tally runs ${Object.keys(this.kinds).join(', ')}, and ${[...WRAPPERS].join(', ')} around them.`,
    );
  }
}
