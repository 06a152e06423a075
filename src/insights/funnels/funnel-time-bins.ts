/**
 * The histogram of time to convert (PostHog's legacy `funnel_time_to_convert`): bins of equal
 * width from the shortest conversion (rounded down) covering the longest (rounded up), one more
 * bin than asked so the longest sample has a bin of its own.
 */

export interface ConversionSampleStats {
  samples: number;
  shortest: number;
  longest: number;
}

export interface HistogramPlan {
  from: number;
  width: number;
  binCount: number;
}

const MAX_AUTO_BINS = 60;
const SINGLE_BIN_WIDTH = 60;

/** The automatic bin count: the cube root of the sample count, rounded up, from 1 to 60. */
export function autoBinCount(samples: number): number {
  return Math.min(MAX_AUTO_BINS, Math.max(1, Math.ceil(Math.cbrt(samples))));
}

/** Where the bins start and how wide they are; a single distinct sample gets a 60-second bin. */
export function histogramPlan(stats: ConversionSampleStats, requestedBins: number | null): HistogramPlan {
  const binCount = requestedBins ?? autoBinCount(stats.samples);
  const from = Math.floor(stats.shortest);
  const to = Math.ceil(stats.longest);
  const width = Math.ceil((to - from) / binCount);
  return { from, width: width > 0 ? width : SINGLE_BIN_WIDTH, binCount };
}

/**
 * histogramPlan and binIndex in ClickHouse SQL, so the samples are binned by the query that
 * computes them: `SELECT samples, shortest, longest, average, actors` from a subquery of
 * `sample` rows, `actors[k + 1]` being the samples of bin k. The automatic bin count is the
 * least b with b³ ≥ samples, which is autoBinCount in whole numbers.
 */
export function histogramSql(samples: string, requestedBins: number | null, bind: (value: unknown, type: string) => string): string {
  const maxBins = bind(MAX_AUTO_BINS, 'UInt64');
  const binCount =
    requestedBins === null ? `arrayFirstIndex(b -> b = ${maxBins} OR b * b * b >= samples, range(1, ${maxBins} + 1))` : bind(requestedBins, 'UInt64');
  return `SELECT samples, shortest, longest, average, arrayMap(k -> countEqual(bins, k), range(bin_count + 1)) AS actors
FROM (
  SELECT count() AS samples, min(sample) AS shortest, max(sample) AS longest, avg(sample) AS average,
    toUInt64(${binCount}) AS bin_count, floor(shortest) AS low, ceil((ceil(longest) - low) / bin_count) AS fitted_width,
    if(fitted_width > 0, fitted_width, ${bind(SINGLE_BIN_WIDTH, 'Float64')}) AS width,
    arrayMap(s -> toInt64(floor((s - low) / width)), groupArray(sample)) AS bins
  FROM (${samples})
)`;
}

/** The bin a sample falls in (0-based). */
export function binIndex(plan: HistogramPlan, sample: number): number {
  return Math.floor((sample - plan.from) / plan.width);
}

/** `[bin start, actors]` for bins 0..binCount, zero where no sample fell. */
export function histogramBins(plan: HistogramPlan, actorsPerBin: ReadonlyMap<number, number>): Array<[number, number]> {
  return Array.from({ length: plan.binCount + 1 }, (_, index): [number, number] => [plan.from + index * plan.width, actorsPerBin.get(index) ?? 0]);
}
