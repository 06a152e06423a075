import type { SqlResolvers } from '../../query/resolvers.js';
import type { Project } from '../../projects/project.js';
import type { Warehouse } from '../../storage/warehouse/warehouse.js';
import { combineAnd, type PropertyGroup } from '../../query/property-filter-model.js';
import { analysisWindow, projectClock, testAccountFilters } from '../actors/analysis-inputs.js';
import { funnelPathSource } from './funnel-path-window.js';
import type { PathFilter } from './path-filter.js';
import { pathSessionsSql, type PathSessions } from './path-session-sql.js';

/** One edge of the paths graph: `value` session paths went from `source` straight to `target`. */
export interface PathEdge {
  /** `<position>_<item>` of the earlier node. */
  source: string;
  /** `<position + 1>_<item>` of the later node. */
  target: string;
  /** Session paths (person-sessions, not distinct persons) with this transition. */
  value: number;
  /** Average time between the two events, in milliseconds. */
  averageConversionTime: number;
}

export interface PathResult {
  edges: PathEdge[];
}

/** What a paths query reads, with extra filters on every event (the actors endpoint's search). */
export interface PathTarget {
  project: Project;
  filter: PathFilter;
  extraProperties?: PropertyGroup;
}

/**
 * Keeps the edges reachable from a first-position node, as PostHog's legacy paths do when no
 * edge weight is asked for: the edge limit can cut a path's earlier edges and leave later ones
 * that no longer connect to a start.
 */
export function reachableEdges(edges: PathEdge[]): PathEdge[] {
  const next = new Map<string, string[]>();
  const stack: string[] = [];
  for (const edge of edges) {
    next.set(edge.source, [...(next.get(edge.source) ?? []), edge.target]);
    if (edge.source.startsWith('1_')) stack.push(edge.source);
  }
  const seen = new Set<string>();
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (seen.has(node)) continue;
    seen.add(node);
    for (const target of next.get(node) ?? []) if (!seen.has(target)) stack.push(target);
  }
  return edges.filter((edge) => seen.has(edge.source));
}

/**
 * Runs legacy paths: the session paths of path-session-sql.ts, their
 * transitions counted per edge in the warehouse, heaviest first, within the edge weights and
 * the edge limit.
 */
export class PathRunner {
  constructor(
    private readonly warehouse: Warehouse,
    private readonly resolvers: SqlResolvers,
  ) {}

  /** The per-session rows of a paths query, for the edges and for their actors alike. */
  sessions({ project, filter, extraProperties }: PathTarget): Promise<PathSessions> {
    const { from, to } = analysisWindow(filter.dates, projectClock(project));
    const properties = combineAnd(filter.properties, testAccountFilters(project, filter), extraProperties ?? combineAnd());
    return pathSessionsSql({
      scope: { teamId: project.id, timezone: project.timezone, from, to, resolvers: this.resolvers },
      filter: { ...filter, properties },
      // Tally's projects hold no path cleaning rules of their own.
      projectCleaning: [],
      funnel: filter.funnelPaths ? funnelPathSource(project, filter.funnelPaths.funnelInput, this.resolvers) : null,
    });
  }

  async run(project: Project, filter: PathFilter): Promise<PathResult> {
    const { scope, sql } = await this.sessions({ project, filter });
    const { params } = scope;
    const weights = [
      ...(filter.minEdgeWeight === null ? [] : [`value >= ${params.add(filter.minEdgeWeight, 'UInt64')}`]),
      ...(filter.maxEdgeWeight === null ? [] : [`value <= ${params.add(filter.maxEdgeWeight, 'UInt64')}`]),
    ];
    const rows = await this.warehouse.query<{ source: string; target: string; value: number | string; average_conversion_time: number }>(
      `SELECT concat(toString(position - 1), '_', path[position - 1]) AS source, concat(toString(position), '_', path[position]) AS target,
  count() AS value, avg((times[position] - times[position - 1]) / 1000) AS average_conversion_time
FROM (${sql})
ARRAY JOIN arrayEnumerate(path) AS position
WHERE position > 1
GROUP BY source, target
${weights.length > 0 ? `HAVING ${weights.join(' AND ')}` : ''}
ORDER BY value DESC, source, target
${filter.edgeLimit === null ? '' : `LIMIT ${params.add(filter.edgeLimit, 'UInt64')}`}`,
      params.all,
    );
    const edges = rows.map((row) => ({
      source: row.source,
      target: row.target,
      value: Number(row.value),
      averageConversionTime: Number(row.average_conversion_time),
    }));
    const weighted = filter.minEdgeWeight !== null || filter.maxEdgeWeight !== null;
    return { edges: weighted ? edges : reachableEdges(edges) };
  }
}
