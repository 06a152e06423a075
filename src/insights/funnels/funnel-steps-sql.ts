import type { EventScope } from '../actors/event-scope.js';
import type { Interval, WeekStartDay } from '../../query/date-range.js';
import { bucketExpression } from '../trends/series-math.js';
import { ALL_USERS_COHORT, type FunnelBreakdown } from './funnel-breakdown.js';
import type { FunnelFilter } from './funnel-filter.js';
import { orderedFunnelSql, secondsBetween } from './funnel-ordered-sql.js';

/**
 * THE per-actor SQL of funnels: every funnel number (steps, trends, time to convert,
 * correlation) and every funnel actor list reads its rows, so a data point counts exactly the
 * actors its persons URL lists.
 *
 * Semantics are PostHog's legacy ones: every event of the first step
 * starts an attempt, which goes on with the first event of each next step after the previous
 * one (for strict funnels, the very next event) and counts the steps reached within the window
 * from its start (inclusive). An exclusion event after an attempt's step `from` and before its
 * step `to` (or the end of the window when `to` was not reached) drops the attempt. An actor
 * reached the most steps of their remaining attempts, and their conversion times are the
 * averages (and medians) over every attempt that reached that many. Unordered funnels start an
 * attempt at every step event and count the other steps done after it within the window.
 *
 * Events of one instant sort events of no step first, then by their lowest step. The attempts
 * of ordered funnels come from array functions over the actor's time-ordered events
 * (funnel-ordered-sql.ts). Those of strict and unordered funnels come from one backwards pass
 * over them (`arrayFold`), linear in their number: the state holds, for each step, the chain
 * of steps that follows the nearest later event of that step, so the chain of an attempt is its
 * first event followed by the chain of the nearest later event of step 2. Each chain entry
 * keeps the time of the nearest later event of every exclusion, which decides whether the
 * attempt crossed one.
 */

/** Breakdown buckets: the property values kept (any other value becomes `Other`), or the cohorts. */
export type FunnelBuckets = { kind: 'values'; top: string[][] } | { kind: 'cohorts'; cohorts: number[] };

export interface FunnelSqlOptions {
  /** Break the actors down into these buckets; absent or null: one bucket, `[]`. */
  buckets?: FunnelBuckets | null;
  /** Keep only the actors of this bucket. */
  breakdownValue?: string[] | null;
  /** Funnel trends: one row per actor and period their attempts entered in. */
  periods?: { interval: Interval; weekStartDay: WeekStartDay } | null;
  /**
   * A property breakdown attributed by first or last touch, ranked by the query that reads
   * these rows (instead of `buckets`): `bucket` is (the actor's value, the values of all their
   * step events), and actors without the first step have rows too (steps 0) because their
   * events count in the ranking.
   */
  rankedValues?: boolean;
}

/** The value of a bucket that is not among the top values. */
export const OTHER_BUCKET = 'Other';

const CHAIN_TYPE = 'Array(Tuple(Int64, Array(Int64)))';
const TIMES_TYPE = 'Array(Array(Nullable(Int64)))';

/** `name` bound to `value` inside `body`: ClickHouse lambdas have no local variables. */
function bind(name: string, value: string, body: string): string {
  return `arrayMap(${name} -> ${body}, [${value}])[1]`;
}

function bitMask(conditions: string[]): string {
  if (conditions.length === 0) return 'toUInt64(0)';
  return conditions.map((condition, k) => `if(${condition}, toUInt64(${2 ** k}), toUInt64(0))`).join(' + ');
}

interface FoldContext {
  steps: number;
  exclusions: number;
  window: string;
  exclusionFrom: string;
  exclusionTo: string;
  trends: boolean;
}

/**
 * The pass's state `acc`: (1) per step, the chain of the nearest later event of that step
 * (unordered: the time of that event), (2) per exclusion, the time of its nearest later event,
 * (3) the most steps an attempt that counts reached, (4) the conversion times of every such
 * attempt, (5) entry time, last step time and step times of the earliest of them, (6) funnel
 * trends: per entrance period, the most steps of its attempts. `x` is the event: (time, step
 * bits, exclusion bits, order in its instant[, entrance period]).
 */
function initialState(first: string, context: FoldContext): string {
  return `(${first}, arrayWithConstant(${context.exclusions}, toInt64(-1)), toUInt64(0), CAST([], '${TIMES_TYPE}'),
      (toInt64(-1), toInt64(-1), CAST([], 'Array(Int64)')), CAST([], 'Array(Tuple(String, UInt64))'))`;
}

/** The state after an attempt that reached `n` steps (`excluded` when it crossed an exclusion). */
function withAttempt(
  context: FoldContext,
  state: { first: string; second: string },
  attempt: { n: string; excluded: string; conversion: string; final: string; stepTimes: string },
): string {
  const counts = `(NOT ${attempt.excluded})`;
  const periods = context.trends
    ? `if(${counts}, if(notEmpty(acc.6) AND acc.6[-1].1 = x.5, arrayPushBack(arrayPopBack(acc.6), (x.5, greatest(acc.6[-1].2, ${attempt.n}))), arrayPushBack(acc.6, (x.5, ${attempt.n}))), acc.6)`
    : 'acc.6';
  return `(
      ${state.first},
      ${state.second},
      if(${counts}, greatest(acc.3, ${attempt.n}), acc.3),
      if(${counts}, if(${attempt.n} > acc.3, [${attempt.conversion}], if(${attempt.n} = acc.3, arrayPushBack(acc.4, ${attempt.conversion}), acc.4)), acc.4),
      if(${counts} AND ${attempt.n} >= acc.3, (x.1, ${attempt.final}, ${attempt.stepTimes}), acc.5),
      ${periods})`;
}

/**
 * The backwards pass of strict funnels over `timeline` (latest event first). The lambda repeats
 * its subexpressions instead of binding them: ClickHouse computes a repeated expression once,
 * while a binding (a one-element arrayMap) copies the whole state per event.
 */
function strictFold(context: FoldContext): string {
  const { steps, window, exclusionFrom: from, exclusionTo: to } = context;
  // The chain of the very next event when it is of step k + 1.
  const chains = `arrayMap(k -> if(bitTest(x.2, k), arrayPushFront(acc.1[k + 2], (x.1, acc.2)), CAST([], '${CHAIN_TYPE}')), range(${steps}))`;
  const exclusions = `arrayMap(j -> if(bitTest(x.3, j), x.1, acc.2[j + 1]), range(${context.exclusions}))`;
  const chain = `(${chains})[1]`;
  const n = `toUInt64(arrayCount(c -> c.1 - x.1 <= ${window}, ${chain}))`;
  const excluded = `arrayExists(j -> length(${chain}) > ${from}[j + 1]
        AND (${chain})[${from}[j + 1] + 1].2[j + 1] >= 0
        AND (${chain})[${from}[j + 1] + 1].2[j + 1] < if(length(${chain}) > ${to}[j + 1], (${chain})[${to}[j + 1] + 1].1, (${chain})[${from}[j + 1] + 1].1 + ${window}), range(${context.exclusions}))`;
  const attempt = withAttempt(
    context,
    { first: chains, second: exclusions },
    {
      n,
      excluded,
      conversion: `arrayMap(i -> if(i < ${n}, ${secondsBetween(`(${chain})[i].1`, `(${chain})[i + 1].1`)}, NULL), range(1, ${steps}))`,
      final: `if(length(${chain}) >= ${steps}, (${chain})[${steps}].1, toInt64(-1))`,
      stepTimes: `arrayMap(c -> c.1, arraySlice(${chain}, 1, ${n}))`,
    },
  );
  const update = `if(bitTest(x.2, 0), ${attempt}, (${chains}, ${exclusions}, acc.3, acc.4, acc.5, acc.6))`;
  const empty = `arrayWithConstant(${steps}, CAST([], '${CHAIN_TYPE}'))`;
  return `arrayFold((acc, x) -> ${update}, arrayReverse(timeline), ${initialState(empty, context)})`;
}

/** The backwards pass of unordered funnels: the state holds the time of the nearest later event of each step. */
function unorderedFold(context: FoldContext): string {
  const { steps, window } = context;
  const nextSteps = `arrayMap(s -> if(bitTest(x.2, s), x.1, acc.1[s + 1]), range(${steps}))`;
  const exclusions = `arrayMap(j -> if(bitTest(x.3, j), x.1, acc.2[j + 1]), range(${context.exclusions}))`;
  // The step this event starts (its lowest), and the later events of every other step.
  const later = `arrayMap(s -> acc.1[s + 1], arrayFilter(s -> s != x.4 - 1, range(${steps})))`;
  const times = `arraySort(arrayPushFront(arrayFilter(v -> v > x.1 AND v - x.1 <= ${window}, ${later}), x.1))`;
  const n = `toUInt64(length(${times}))`;
  // Until every other step was done (even late), else until the window closes.
  const until = `if(arrayAll(v -> v >= 0, ${later}), arrayMax(${later}), x.1 + ${window})`;
  const attempt = withAttempt(
    context,
    { first: nextSteps, second: exclusions },
    {
      n,
      excluded: `arrayExists(j -> acc.2[j + 1] >= 0 AND acc.2[j + 1] < ${until}, range(${context.exclusions}))`,
      conversion: `arrayMap(i -> if(i < ${n}, ${secondsBetween(`(${times})[i]`, `(${times})[i + 1]`)}, NULL), range(1, ${steps}))`,
      final: `if(${n} = ${steps}, arrayMax(${times}), toInt64(-1))`,
      stepTimes: times,
    },
  );
  const update = `if(x.2 > 0, ${attempt}, (${nextSteps}, ${exclusions}, acc.3, acc.4, acc.5, acc.6))`;
  return `arrayFold((acc, x) -> ${update}, arrayReverse(timeline), ${initialState(`arrayWithConstant(${steps}, toInt64(-1))`, context)})`;
}

function propertyValues(breakdown: Exclude<FunnelBreakdown, { type: 'cohort' }>, scope: EventScope): string {
  return `[${breakdown.properties.map((property) => scope.source.breakdownValue(breakdown, property)).join(', ')}]`;
}

interface BucketColumns {
  /** Extra columns of each event row. */
  event: string;
  /** Extra GROUP BY keys of the actor rows. */
  groupBy: string;
  /** The actor's buckets (Array(Array(String))), from its events. */
  buckets: string;
}

/** The breakdown limit when the query reading the rows can rank the values (`rankedValues`), else null. */
export function rankedBreakdownLimit(filter: FunnelFilter): number | null {
  const { breakdown, attribution } = filter;
  if (!breakdown || breakdown.type === 'cohort' || (attribution.kind !== 'first_touch' && attribution.kind !== 'last_touch')) return null;
  // Group actors skip events without the group, which the ranking counts.
  return filter.aggregationGroupTypeIndex === null ? breakdown.limit : null;
}

function touchedValue(filter: FunnelFilter): string {
  const pick = filter.attribution.kind === 'last_touch' ? 'argMaxIf' : 'argMinIf';
  return `${pick}(prop, at, step_mask > 0 AND arrayExists(v -> v != '', prop))`;
}

async function bucketColumns(filter: FunnelFilter, scope: EventScope, buckets: FunnelBuckets | null, rankedValues: boolean): Promise<BucketColumns> {
  const { breakdown } = filter;
  if (breakdown && breakdown.type !== 'cohort' && rankedValues) {
    const empty = `arrayWithConstant(${breakdown.properties.length}, '')`;
    const value = bind('touched', touchedValue(filter), `if(empty(touched), ${empty}, touched)`);
    return { event: `, ${propertyValues(breakdown, scope)} AS prop`, groupBy: '', buckets: `[(${value}, groupArrayIf(prop, step_mask > 0))]` };
  }
  if (!breakdown || !buckets) return { event: '', groupBy: '', buckets: `[CAST([], 'Array(String)')]` };
  const { params } = scope;
  if (breakdown.type === 'cohort' || buckets.kind === 'cohorts') {
    const cohorts = buckets.kind === 'cohorts' ? buckets.cohorts : [];
    const members: string[] = [];
    for (const cohort of cohorts) {
      const condition = cohort === ALL_USERS_COHORT ? '1' : await scope.cohortMembership(cohort);
      members.push(`if(${condition}, [${params.add(String(cohort), 'String')}], CAST([], 'Array(String)'))`);
    }
    return { event: `, arrayJoin(arrayFilter(b -> notEmpty(b), [${members.join(', ')}])) AS bucket`, groupBy: ', bucket', buckets: '[bucket]' };
  }
  const top = params.add(buckets.top, 'Array(Array(String))');
  const kept = (value: string) => `if(has(${top}, ${value}), ${value}, [${params.add(OTHER_BUCKET, 'String')}])`;
  const values = propertyValues(breakdown, scope);
  const attribution = filter.attribution;
  if (attribution.kind === 'all_events') {
    return { event: `, ${kept(values)} AS bucket`, groupBy: ', bucket', buckets: '[bucket]' };
  }
  const event = `, ${values} AS prop`;
  const empty = `arrayWithConstant(${breakdown.properties.length}, '')`;
  if (attribution.kind === 'step') {
    const step = params.add(attribution.step, 'UInt8');
    return { event, groupBy: '', buckets: `arrayDistinct(arrayMap(v -> ${kept('v')}, groupUniqArrayIf(prop, bitTest(step_mask, ${step}))))` };
  }
  return { event, groupBy: '', buckets: `[${bind('touched', touchedValue(filter), kept(`if(empty(touched), ${empty}, touched)`))}]` };
}

/**
 * `SELECT actor, bucket, steps, entry_at, final_at, step_times, avg_times, median_times`: one row
 * per actor (and bucket) who did the first step in range (unordered: any step); `steps` is 0 for
 * actors whose every attempt was excluded. `entry_at` and `final_at` (microseconds, -1 for
 * none) are the first and last step times of the earliest attempt that got furthest,
 * `step_times` its step times, `avg_times[i]` and `median_times[i]` the actor's conversion
 * times into step i + 1 (null before it). With `periods`: `actor, bucket, period, steps` per
 * period an attempt entered in. Build it before asking the scope for its FROM clause: the
 * conditions register the joins they read.
 */
export async function funnelPerActorSql(filter: FunnelFilter, scope: EventScope, options: FunnelSqlOptions = {}): Promise<string> {
  const { params, source } = scope;
  const stepConditions: string[] = [];
  // Only a step from `actions` can name something unknown, so that is the field an error names.
  for (const step of filter.steps) stepConditions.push(`(${await scope.entityCondition(step, 'actions')})`);
  const exclusionConditions: string[] = [];
  for (const exclusion of filter.exclusions) exclusionConditions.push(`(${await scope.entityCondition(exclusion.entity, 'exclusions')})`);
  const context: FoldContext = {
    steps: filter.steps.length,
    exclusions: filter.exclusions.length,
    window: params.add(filter.windowSeconds * 1_000_000, 'Int64'),
    exclusionFrom: params.add(
      filter.exclusions.map((exclusion) => exclusion.fromStep),
      'Array(UInt64)',
    ),
    exclusionTo: params.add(
      filter.exclusions.map((exclusion) => exclusion.toStep),
      'Array(UInt64)',
    ),
    trends: Boolean(options.periods),
  };
  const rankedValues = Boolean(options.rankedValues) && rankedBreakdownLimit(filter) !== null;
  const buckets = await bucketColumns(filter, scope, options.buckets ?? null, rankedValues);
  const group = filter.aggregationGroupTypeIndex;
  const actor = group === null ? source.personId : `e.\`$group_${group}\``;
  const { periods } = options;
  const periodOf = periods ? (timestamp: string) => bucketExpression(periods.interval, timestamp, periods.weekStartDay) : null;
  // The passes read each event's period; ordered funnels only their attempts' first events'.
  const folded = filter.orderType !== 'ordered';
  const period = periodOf && folded ? `, toString(${periodOf('e.timestamp')}) AS period` : '';
  const conditions: string[] = [];
  // Strict funnels see every event of the actor: any other event breaks the sequence.
  const strict = filter.orderType === 'strict';
  if (!strict) conditions.push(`(${[...stepConditions, ...exclusionConditions].join(' OR ')})`);
  const stepEvents = strict ? null : scope.eventNamesScan([...filter.steps, ...filter.exclusions.map((exclusion) => exclusion.entity)]);
  if (group !== null) conditions.push(`e.\`$group_${group}\` != ''`);
  // Only actors with an event of the first step (of any step, unordered) can have an attempt.
  const entered = filter.orderType === 'unordered' || rankedValues ? '' : 'HAVING bitTest(groupBitOr(step_mask), 0)';
  const keep = options.breakdownValue ? `WHERE bucket = ${params.add(options.breakdownValue, 'Array(String)')}` : '';
  const events = `SELECT ${actor} AS actor, toUnixTimestamp64Micro(e.timestamp) AS at, ${bitMask(stepConditions)} AS step_mask,
          ${bitMask(exclusionConditions)} AS exclusion_mask${buckets.event}${period}
        ${scope.fromWhere(conditions, [stepEvents])}`;
  const order = `if(step_mask = 0, 0, 1 + bitCount(bitAnd(step_mask, bitNot(step_mask) + 1) - 1))`;
  const timeline = `arraySort(x -> (x.1, x.4), groupArray((at, step_mask, exclusion_mask, ${order}${period ? ', period' : ''})))`;
  const timelines = `SELECT actor, bucket, timeline
    FROM (
      SELECT actor, ${buckets.buckets} AS buckets, ${timeline} AS timeline
      FROM (
        ${events}
      )
      GROUP BY actor${buckets.groupBy}
      ${entered}
    )
    ARRAY JOIN buckets AS bucket
    ${keep}`;
  if (!folded) return orderedFunnelSql({ ...context, entryPeriod: periodOf ? (time) => periodOf(`fromUnixTimestamp64Micro(${time})`) : null }, timelines);
  const fold = filter.orderType === 'unordered' ? unorderedFold(context) : strictFold(context);
  const attempts = `SELECT actor, bucket, ${fold} AS funnel FROM (${timelines})`;
  if (options.periods) {
    return `SELECT actor, bucket, entered.1 AS period, entered.2 AS steps
FROM (
    ${attempts}
)
ARRAY JOIN funnel.6 AS entered`;
  }
  return `SELECT actor, bucket, funnel.3 AS steps, funnel.5.1 AS entry_at, funnel.5.2 AS final_at, funnel.5.3 AS step_times,
  arrayMap(i -> arrayReduce('avgOrNull', arrayMap(c -> c[i], funnel.4)), range(1, ${context.steps})) AS avg_times,
  arrayMap(i -> arrayReduce('quantileExactInclusiveOrNull(0.5)', arrayMap(c -> c[i], funnel.4)), range(1, ${context.steps})) AS median_times
FROM (
    ${attempts}
)`;
}
