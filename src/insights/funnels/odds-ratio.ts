/**
 * Funnel correlation statistics (PostHog's legacy `funnel_correlation.py`): odds ratios with a
 * prior of one success and one failure, the significance floor, the skew warning, and the top
 * ten rows of each direction.
 */

export interface SuccessFailure {
  success: number;
  failure: number;
}

/** PostHog's floor: fewer than 25 actors, or 2% of the funnel's actors when that is fewer, is noise. */
const MIN_ACTOR_COUNT = 25;
const MIN_ACTOR_SHARE = 0.02;
const PRIOR_COUNT = 1;
const TOP_ROWS = 10;
const SKEW_RATIO = 10;

/**
 * The odds of converting among actors who had the row's event or value, over the odds among
 * those who did not; every cell gets the prior, so no count divides by zero.
 */
export function oddsRatio(visited: SuccessFailure, totals: SuccessFailure, prior = PRIOR_COUNT): number {
  return ((visited.success + prior) * (totals.failure - visited.failure + prior)) / ((totals.success - visited.success + prior) * (visited.failure + prior));
}

export function isInsignificant(visited: SuccessFailure, totals: SuccessFailure): boolean {
  return visited.success + visited.failure < Math.min(MIN_ACTOR_COUNT, MIN_ACTOR_SHARE * (totals.success + totals.failure));
}

/** One side outnumbering the other more than ten to one makes the ratios unreliable. */
export function isSkewed(totals: SuccessFailure): boolean {
  return totals.success / totals.failure > SKEW_RATIO || totals.failure / totals.success > SKEW_RATIO;
}

export type Correlated<T> = T & { oddsRatio: number; correlationType: 'success' | 'failure' };

/**
 * The significant rows with their odds ratios: the ten most positive (ratio above 1, highest
 * first), then the ten most negative (lowest first). Without successes or without failures
 * there is nothing to compare: no rows, and skewed.
 */
export function correlate<T extends { visited: SuccessFailure }>(rows: readonly T[], totals: SuccessFailure): { rows: Correlated<T>[]; skewed: boolean } {
  if (totals.success === 0 || totals.failure === 0) return { rows: [], skewed: true };
  const rated = rows
    .filter((row) => !isInsignificant(row.visited, totals))
    .map((row): Correlated<T> => {
      const ratio = oddsRatio(row.visited, totals);
      return { ...row, oddsRatio: ratio, correlationType: ratio > 1 ? 'success' : 'failure' };
    });
  const positive = rated.filter((row) => row.correlationType === 'success').sort((a, b) => b.oddsRatio - a.oddsRatio);
  const negative = rated.filter((row) => row.correlationType === 'failure').sort((a, b) => a.oddsRatio - b.oddsRatio);
  return { rows: [...positive.slice(0, TOP_ROWS), ...negative.slice(0, TOP_ROWS)], skewed: isSkewed(totals) };
}
