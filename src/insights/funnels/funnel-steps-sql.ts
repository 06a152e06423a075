import { ValidationError } from '../../errors.js';
import type { EventScope } from '../actors/event-scope.js';
import { toWarehouseTime } from '../../query/date-range.js';
import { rawPropertyValue } from '../../query/property-filters.js';
import type { FunnelFilter } from './funnel-filter.js';

/**
 * ClickHouse SQL of the funnel per actor: how far each person got, when the attempt that got
 * furthest entered the funnel, and when it completed the last step. Everything runs in the
 * warehouse over each person's time-ordered events (`at` in microseconds, `step_mask` bit k set
 * when the event matches step k).
 *
 * Ordered and strict funnels fold the events with the state of insights.md §1.3: `entries[k]` is
 * the entry time of the latest attempt that has completed step k (-1 for none). Each event updates
 * every step it matches from the *previous* state of the step before it, which is processing steps
 * in descending order: one event never completes two consecutive steps of one attempt. The window
 * is measured from the attempt's entry and is inclusive. Strict funnels clear the steps an event
 * does not match. Unordered funnels take, for each step event, the distinct steps done within the
 * window from it, and keep the best. Exclusions follow §1.3 step 6: an exclusion event between
 * an attempt's steps of its range marks the attempt, and an actor whose furthest attempt is
 * marked leaves the funnel.
 */

export interface FunnelActorsOptions {
  /** The breakdown bucket to keep (`funnel_step_breakdown`); null keeps every actor. */
  breakdownValue: string | null;
}

function bitMask(conditions: string[]): string {
  if (conditions.length === 0) return 'toUInt64(0)';
  return conditions.map((condition, k) => `if(${condition}, toUInt64(${2 ** k}), toUInt64(0))`).join(' + ');
}

/** Per step k, the exclusions whose range covers an attempt that has completed step k and not the next one. */
function exclusionCover(filter: FunnelFilter): number[] {
  return filter.steps.map((_, k) =>
    filter.exclusions.reduce((mask, exclusion, j) => (exclusion.fromStep <= k && k < exclusion.toStep ? mask + 2 ** j : mask), 0),
  );
}

/**
 * The fold of ordered and strict funnels. Event `ev` is (at, step_mask, exclusion_mask); the
 * state is (entries, excluded, furthest step, entry of the attempt that got there, time it
 * completed the last step, whether that attempt is excluded, step times per state, step times of
 * the furthest attempt). `s` binds the new (entries, excluded, step times) once and `idx` the
 * furthest step they hold.
 */
function orderedFold(steps: number, window: string, cover: string, strict: boolean): string {
  const advances = `bitTest(ev.2, k) AND (k = 0 OR (acc.1[k] >= 0 AND ev.1 - acc.1[k] <= ${window}))`;
  const entries = `arrayMap(k -> if(${advances}, if(k = 0, ev.1, acc.1[k]), ${strict ? `if(bitTest(ev.2, k), acc.1[k + 1], toInt64(-1))` : 'acc.1[k + 1]'}), range(${steps}))`;
  // An exclusion event inside the window marks the attempts between its steps; advancing carries the mark along.
  const marked = `bitOr(acc.2[k + 1], toUInt8(acc.1[k + 1] >= 0 AND ev.1 - acc.1[k + 1] <= ${window} AND bitAnd(ev.3, ${cover}[k + 1]) != 0))`;
  const excluded = `arrayMap(k -> if(${advances}, if(k = 0, toUInt8(0), acc.2[k]), ${strict ? `if(bitTest(ev.2, k), ${marked}, toUInt8(0))` : marked}), range(${steps}))`;
  const noTimes = `CAST([], 'Array(Int64)')`;
  const times = `arrayMap(k -> if(${advances}, if(k = 0, [ev.1], arrayPushBack(acc.7[k], ev.1)), ${strict ? `if(bitTest(ev.2, k), acc.7[k + 1], ${noTimes})` : 'acc.7[k + 1]'}), range(${steps}))`;
  // A cleaner attempt at the same furthest step replaces an excluded one; the kept attempt may be marked later.
  const replaces = `idx = acc.3 AND idx > 0 AND acc.6 = 1 AND s.2[idx] = 0`;
  const same = `idx = acc.3 AND idx > 0 AND s.1[idx] = acc.4`;
  return `arrayFold((acc, ev) -> arrayMap(s -> arrayMap(idx -> (
        s.1,
        s.2,
        greatest(acc.3, idx),
        if(idx > acc.3 OR ${replaces}, s.1[idx], acc.4),
        if(idx = ${steps} AND acc.3 < ${steps}, ev.1, acc.5),
        multiIf(idx > acc.3, s.2[idx], ${replaces}, toUInt8(0), ${same}, s.2[idx], acc.6),
        s.3,
        if(idx > acc.3 OR ${replaces}, s.3[idx], acc.8)
      ), [arrayLastIndex(x -> x >= 0, s.1)])[1], [(${entries}, ${excluded}, ${times})])[1],
    timeline, (arrayWithConstant(${steps}, toInt64(-1)), arrayWithConstant(${steps}, toUInt8(0)), toUInt64(0), toInt64(-1), toInt64(-1),
      toUInt8(0), arrayWithConstant(${steps}, ${noTimes}), ${noTimes}))`;
}

/** (steps, entry, completion time, excluded, step times) of an ordered or strict funnel. */
function orderedResult(steps: number, window: string, cover: string, strict: boolean): string {
  return `arrayMap(r -> (r.3, r.4, r.5, r.6, r.8), [${orderedFold(steps, window, cover, strict)}])[1]`;
}

/**
 * (steps, entry, completion time, excluded, no step times) of an unordered funnel: per step event, the distinct
 * steps done within the window from it; most steps first, then windows without an exclusion event,
 * then the earliest.
 */
function unorderedResult(window: string): string {
  const inWindow = `x.1 >= anchor.1 AND x.1 <= anchor.1 + ${window}`;
  const best = `arrayMax(arrayMap(anchor -> (
      toUInt64(bitCount(arrayReduce('groupBitOr', arrayMap(x -> if(${inWindow}, x.2, toUInt64(0)), timeline)))),
      toUInt8(NOT arrayExists(x -> x.3 > 0 AND ${inWindow}, timeline)),
      -anchor.1), arrayFilter(x -> x.2 > 0, timeline)))`;
  return `arrayMap(b -> (b.1, -b.3, toInt64(-1), toUInt8(1 - b.2), CAST([], 'Array(Int64)')), [${best}])[1]`;
}

async function breakdownColumns(filter: FunnelFilter, scope: EventScope, options: FunnelActorsOptions): Promise<{ inner: string; perActor: string }> {
  const { breakdown } = filter;
  if (!breakdown || options.breakdownValue === null) return { inner: '', perActor: '1' };
  const { source, params } = scope;
  if (breakdown.type === 'cohort') {
    const value = options.breakdownValue;
    if (value === 'all' || value === '0') return { inner: '', perActor: '1' };
    if (!/^\d+$/.test(value)) throw new ValidationError('funnel_step_breakdown', 'A cohort breakdown value is a cohort id or "all".');
    return { inner: `, toUInt8(${await scope.cohortMembership(Number(value))}) AS breakdown_member`, perActor: 'max(breakdown_member)' };
  }
  if (breakdown.type === 'session') throw new ValidationError('breakdown_type', 'Funnels do not break down by session.');
  const json = source.breakdownProperties(breakdown);
  const value = params.add(options.breakdownValue, 'String');
  const attribution = filter.attribution;
  const attributed =
    attribution.kind === 'last_touch'
      ? `argMaxIf(breakdown_prop, at, breakdown_prop != '' AND step_mask > 0)`
      : attribution.kind === 'step'
        ? `argMinIf(breakdown_prop, at, bitTest(step_mask, ${params.add(attribution.step, 'UInt8')}))`
        : `argMinIf(breakdown_prop, at, breakdown_prop != '' AND step_mask > 0)`;
  return { inner: `, ${rawPropertyValue(json, breakdown.property, params)} AS breakdown_prop`, perActor: `${attributed} = ${value}` };
}

/**
 * `SELECT actor, steps, entry_at, final_at, step_times, in_breakdown` with one row per person who did any
 * step event in range (`steps` 0 when they never entered). Build it before asking the scope for
 * its FROM clause: the conditions register the joins they read.
 */
export async function funnelPerActorSql(filter: FunnelFilter, scope: EventScope, options: FunnelActorsOptions): Promise<string> {
  const steps: string[] = [];
  // Only a step from `actions` can name something unknown, so that is the field an error names.
  for (const step of filter.steps) steps.push(`(${await scope.entityCondition(step, 'actions')})`);
  if (filter.entrancePeriod) {
    // Funnel trends: an attempt belongs to the period of its first step.
    const { from, to } = filter.entrancePeriod;
    const start = scope.params.add(toWarehouseTime(from), "DateTime64(6, 'UTC')");
    const end = scope.params.add(toWarehouseTime(to), "DateTime64(6, 'UTC')");
    steps[0] = `(${steps[0]} AND e.timestamp >= ${start} AND e.timestamp < ${end})`;
  }
  const exclusions: string[] = [];
  for (const exclusion of filter.exclusions) exclusions.push(`(${await scope.entityCondition(exclusion.entity, 'exclusions')})`);
  const window = scope.params.add(filter.windowSeconds * 1_000_000, 'Int64');
  const cover = scope.params.add(exclusionCover(filter), 'Array(UInt64)');
  const { inner, perActor } = await breakdownColumns(filter, scope, options);
  const result =
    filter.orderType === 'unordered'
      ? unorderedResult(window)
      : orderedResult(filter.steps.length, window, cover, filter.orderType === 'strict');
  // Strict funnels see every event of the person: any other event breaks the sequence.
  const prefilter = filter.orderType === 'strict' ? [] : [`(${[...steps, ...exclusions].join(' OR ')})`];
  // An actor whose furthest attempt is excluded leaves every step.
  return `SELECT actor, if(funnel.4 = 1, 0, funnel.1) AS steps, funnel.2 AS entry_at, funnel.3 AS final_at, funnel.5 AS step_times, in_breakdown
FROM (
  SELECT actor, ${result} AS funnel, in_breakdown
  FROM (
    SELECT actor, arraySort(x -> (x.1, bitAnd(x.2, bitNot(x.2) + 1)), groupArray((at, step_mask, exclusion_mask))) AS timeline, ${perActor} AS in_breakdown
    FROM (
      SELECT ${scope.source.personId} AS actor, toUnixTimestamp64Micro(e.timestamp) AS at, ${bitMask(steps)} AS step_mask,
        ${bitMask(exclusions)} AS exclusion_mask${inner}
      ${scope.fromWhere(prefilter)}
    )
    GROUP BY actor
  )
)`;
}
