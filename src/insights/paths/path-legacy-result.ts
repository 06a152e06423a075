import type { PathResult } from './path-runner.js';

/** PostHog's legacy paths result: one object per edge, times in milliseconds. */
export function legacyPathResult(result: PathResult) {
  return result.edges.map((edge) => ({
    source: edge.source,
    target: edge.target,
    value: edge.value,
    average_conversion_time: edge.averageConversionTime,
  }));
}
