/**
 * The attempts of ordered (not strict) funnels as funnel-steps-sql.ts defines them, computed
 * with array functions over the actor's time-ordered events: ClickHouse runs these column-wise,
 * where a pass over the events (`arrayFold`) copies its whole state per event.
 *
 * The positions of the timeline are its order in time (ties as funnelPerActorSql sorts them).
 * For each step, `arrayReverseFill` gives every position the nearest position at or after it
 * that matches the step; read one position further on, it is the nearest strictly after, so one
 * event cannot be two consecutive steps of one attempt. An attempt starts at each event of the
 * first step and its step k + 1 is the nearest event of that step after its step k.
 */

export interface OrderedFunnelContext {
  steps: number;
  exclusions: number;
  /** The bound window in microseconds, and the bound arrays of the exclusions' from and to steps. */
  window: string;
  exclusionFrom: string;
  exclusionTo: string;
  /** Funnel trends: the start of the entrance period of an attempt that starts at `time` (microseconds). */
  entryPeriod: ((time: string) => string) | null;
}

/** Whole-second difference of two microsecond times, as PostHog's dateDiff of DateTimes. */
export function secondsBetween(earlier: string, later: string): string {
  return `intDiv(${later}, 1000000) - intDiv(${earlier}, 1000000)`;
}

/**
 * `SELECT actor, bucket, …` over `source` (rows of `actor, bucket, timeline`) with the columns of
 * funnelPerActorSql: `steps, entry_at, final_at, step_times, avg_times, median_times`, or for
 * funnel trends `period, steps`.
 */
export function orderedFunnelSql(context: OrderedFunnelContext, source: string): string {
  const { steps, window } = context;
  const stepRange = Array.from({ length: steps }, (_, step) => step);
  const later = stepRange.slice(1);
  // `at_k`: per attempt, the position of its step k (0 when the attempt has none).
  const positions = stepRange.map((step) => `at_${step}`);
  const nextOf = later.map((step) => `arrayReverseFill(p -> p > 0, arrayMap((m, i) -> if(bitTest(m, ${step}), i, 0), masks, positions)) AS next_${step}`);
  const chained = later.map((step) => `arrayMap(p -> if(p > 0, next_${step}[p + 1], 0), at_${step - 1}) AS at_${step}`);
  const inWindow = later.map((step) => ` + (p${step} > 0 AND ts[p${step}] - ts[p0] <= ${window})`).join('');
  const lambdaArgs = stepRange.map((step) => `p${step}`).join(', ');
  const reached = `arrayMap((${lambdaArgs}) -> toUInt64(1${inWindow}), ${positions.join(', ')})`;
  const exclusionColumns: string[] = [];
  let counted = reached;
  if (context.exclusions > 0) {
    const { exclusionFrom: from, exclusionTo: to } = context;
    exclusionColumns.push(
      `arrayMap(j -> arrayReverseFill(p -> p > 0, arrayMap((x, i) -> if(bitTest(x.3, j), i, 0), timeline, positions)), range(${context.exclusions})) AS next_exclusion`,
    );
    // An exclusion after the attempt's step `from` and before its step `to` (or, without one,
    // before the window from step `from` closes) drops the attempt.
    const chain = `[${lambdaArgs}]`;
    const fromAt = `${chain}[${from}[j + 1] + 1]`;
    const toAt = `${chain}[${to}[j + 1] + 1]`;
    const hit = `next_exclusion[j + 1][${fromAt} + 1]`;
    const excluded = `arrayExists(j -> ${fromAt} > 0 AND ${hit} > 0 AND ts[${hit}] < if(${toAt} > 0, ts[${toAt}], ts[${fromAt}] + ${window}), range(${context.exclusions}))`;
    counted = `arrayMap((n, ${lambdaArgs}) -> if(${excluded}, toUInt64(0), n), ${reached}, ${positions.join(', ')})`;
  }
  const { entryPeriod } = context;
  const kept = ['ts', ...positions, 'counted', ...(entryPeriod ? ['entry_periods'] : [])];
  const periods = entryPeriod ? `, arrayMap(p -> ${entryPeriod('ts[p]')}, at_0) AS entry_periods` : '';
  const attempts = `SELECT actor, bucket, ${kept.join(', ')}, arrayMax(counted) AS most
    FROM (
      SELECT actor, bucket, ts, ${positions.join(', ')}, counted${periods}
      FROM (
        SELECT actor, bucket, timeline,
          arrayMap(x -> x.1, timeline) AS ts,
          arrayMap(x -> x.2, timeline) AS masks,
          arrayEnumerate(masks) AS positions,
          ${[...nextOf, ...exclusionColumns, 'arrayFilter((i, m) -> bitTest(m, 0), positions, masks) AS at_0', ...chained].join(',\n          ')},
          ${counted} AS counted
        FROM (${source})
      )
    )`;
  if (entryPeriod) {
    // An actor's row per entrance period: the most steps of the attempts that count starting in it.
    return `SELECT actor, bucket, toString(entered.1) AS period, entered.2 AS steps
FROM (
  SELECT actor, bucket, arrayFilter((p, k) -> k > 0, entry_periods, counted) AS counted_periods,
    arrayFilter(k -> k > 0, counted) AS counted_steps,
    arrayMap((p, i) -> i = 1 OR p != counted_periods[i - 1], counted_periods, arrayEnumerate(counted_periods)) AS firsts,
    arrayZip(arrayFilter((p, f) -> f, counted_periods, firsts), arrayMap(g -> arrayMax(g), arraySplit((k, f) -> f, counted_steps, firsts))) AS periods
  FROM (${attempts})
)
ARRAY JOIN periods AS entered`;
  }
  // The earliest attempt that reached the most steps gives the times; every such attempt's conversions count.
  const times = `[${positions.map((position) => `ts[${position}[best]]`).join(', ')}]`;
  const conversions = (aggregate: string) =>
    steps > 1
      ? `[${later
          .map(
            (step) =>
              `if(most > ${step}, arrayReduce('${aggregate}', arrayMap((k, a, b) -> if(k = most, ${secondsBetween('ts[a]', 'ts[b]')}, NULL), counted, at_${step - 1}, at_${step})), NULL)`,
          )
          .join(', ')}]`
      : `CAST([], 'Array(Nullable(Float64))')`;
  return `SELECT actor, bucket, most AS steps,
  if(best > 0, ts[at_0[best]], toInt64(-1)) AS entry_at,
  if(best > 0 AND at_${steps - 1}[best] > 0, ts[at_${steps - 1}[best]], toInt64(-1)) AS final_at,
  if(best > 0, arraySlice(${times}, 1, most), CAST([], 'Array(Int64)')) AS step_times,
  ${conversions('avgOrNull')} AS avg_times,
  ${conversions('quantileExactInclusiveOrNull(0.5)')} AS median_times
FROM (
  SELECT *, if(most > 0, arrayFirstIndex(k -> k = most, counted), 0) AS best
  FROM (${attempts})
)`;
}
