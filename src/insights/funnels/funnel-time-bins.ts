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

/** The automatic bin count: the cube root of the sample count, rounded up, from 1 to 60. */
export function autoBinCount(samples: number): number {
  return Math.min(60, Math.max(1, Math.ceil(Math.cbrt(samples))));
}

/** Where the bins start and how wide they are; a single distinct sample gets a 60-second bin. */
export function histogramPlan(stats: ConversionSampleStats, requestedBins: number | null): HistogramPlan {
  const binCount = requestedBins ?? autoBinCount(stats.samples);
  const from = Math.floor(stats.shortest);
  const to = Math.ceil(stats.longest);
  const width = Math.ceil((to - from) / binCount);
  return { from, width: width > 0 ? width : 60, binCount };
}

/** The bin a sample falls in (0-based). */
export function binIndex(plan: HistogramPlan, sample: number): number {
  return Math.floor((sample - plan.from) / plan.width);
}

/** `[bin start, actors]` for bins 0..binCount, zero where no sample fell. */
export function histogramBins(plan: HistogramPlan, actorsPerBin: ReadonlyMap<number, number>): Array<[number, number]> {
  return Array.from({ length: plan.binCount + 1 }, (_, index): [number, number] => [plan.from + index * plan.width, actorsPerBin.get(index) ?? 0]);
}
