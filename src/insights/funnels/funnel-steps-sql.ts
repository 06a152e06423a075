import { ValidationError } from '../../errors.js';
import type { EventScope } from '../actors/event-scope.js';
import { rawPropertyValue } from '../property-filters.js';
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
 * window from it, and keep the best.
 */

export interface FunnelActorsOptions {
  /** The breakdown bucket to keep (`funnel_step_breakdown`); null keeps every actor. */
  breakdownValue: string | null;
}

function stepMask(conditions: string[]): string {
  return conditions.map((condition, k) => `if(${condition}, toUInt64(${2 ** k}), toUInt64(0))`).join(' + ');
}

/** One fold step: the new `entries` after event `ev` (ev.1 = at, ev.2 = step_mask). */
function nextEntries(steps: number, window: string, strict: boolean): string {
  const unmatched = strict ? 'toInt64(-1)' : 'acc.1[k + 1]';
  return `arrayMap(k -> if(bitTest(ev.2, k),
      if(k = 0, ev.1, if(acc.1[k] >= 0 AND ev.1 - acc.1[k] <= ${window}, acc.1[k], acc.1[k + 1])),
      ${unmatched}), range(${steps}))`;
}

function orderedFold(steps: number, window: string, strict: boolean): string {
  const entries = nextEntries(steps, window, strict);
  const reachedNow = `arrayLastIndex(x -> x >= 0, ${entries})`;
  // State: (entries, furthest step, entry of the attempt that got there, time it completed the last step).
  return `arrayFold((acc, ev) -> (
      ${entries},
      greatest(acc.2, ${reachedNow}),
      if(${reachedNow} > acc.2, ${entries}[${reachedNow}], acc.3),
      if(${reachedNow} = ${steps} AND acc.2 < ${steps}, ev.1, acc.4)
    ), timeline, (arrayWithConstant(${steps}, toInt64(-1)), toUInt64(0), toInt64(-1), toInt64(-1)))`;
}

function unorderedFold(window: string): string {
  // Per step event: (distinct steps within the window from it, -its time); the max is the most steps, earliest first.
  const best = `arrayMax(arrayMap(anchor -> (
      toUInt64(bitCount(arrayReduce('groupBitOr', arrayMap(x -> if(x.1 >= anchor.1 AND x.1 <= anchor.1 + ${window}, x.2, toUInt64(0)), timeline)))),
      -anchor.1), arrayFilter(x -> x.2 > 0, timeline)))`;
  return `(toInt8(0), ${best}.1, -${best}.2, toInt64(-1))`;
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
  const json =
    breakdown.type === 'person'
      ? source.personProperties
      : breakdown.type === 'group'
        ? source.groupProperties(breakdown.groupTypeIndex ?? 0)
        : source.eventProperties;
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
 * `SELECT actor, steps, entry_at, final_at, in_breakdown` with one row per person who did any
 * step event in range (`steps` 0 when they never entered). Build it before asking the scope for
 * its FROM clause: the conditions register the joins they read.
 */
export async function funnelPerActorSql(filter: FunnelFilter, scope: EventScope, options: FunnelActorsOptions): Promise<string> {
  const conditions: string[] = [];
  for (const step of filter.steps) conditions.push(`(${await scope.entityCondition(step, 'events')})`);
  const window = scope.params.add(filter.windowSeconds * 1_000_000, 'Int64');
  const { inner, perActor } = await breakdownColumns(filter, scope, options);
  const fold =
    filter.orderType === 'unordered' ? unorderedFold(window) : orderedFold(filter.steps.length, window, filter.orderType === 'strict');
  // Strict funnels see every event of the person: any other event breaks the sequence.
  const prefilter = filter.orderType === 'strict' ? [] : [`(${conditions.join(' OR ')})`];
  return `SELECT actor, funnel.2 AS steps, funnel.3 AS entry_at, funnel.4 AS final_at, in_breakdown
FROM (
  SELECT actor, ${fold} AS funnel, in_breakdown
  FROM (
    SELECT actor, arraySort(x -> (x.1, bitAnd(x.2, bitNot(x.2) + 1)), groupArray((at, step_mask))) AS timeline, ${perActor} AS in_breakdown
    FROM (
      SELECT ${scope.source.personId} AS actor, toUnixTimestamp64Micro(e.timestamp) AS at, ${stepMask(conditions)} AS step_mask${inner}
      ${scope.fromWhere(prefilter)}
    )
    GROUP BY actor
  )
)`;
}
