import type { ChdbWarehouse } from '../../src/storage/warehouse/chdb-warehouse.js';
import type { TallyServer } from '../../test/support/tally.js';
import { generateEvents } from '../generator.js';
import { loadedServer, openRawWarehouse } from '../loaded-server.js';
import { comparisons, loadMeasurement, peakMeasurements, type Measurement } from '../report.js';
import { timeApiAgainstRaw, timeFresh, type ApiRawCase } from '../timing.js';
import type { SuiteOptions } from './suite.js';
import { callApi } from '../api-client.js';

/** What a query's answer means, the same whichever side computed it: compared before anything is timed. */
type Numbers = unknown;

/** A query through the API, and the hand-written ClickHouse SQL giving the same numbers. */
export interface InsightCase {
  name: string;
  path: string;
  body: Record<string, unknown>;
  /** The numbers of the API's `result`. */
  fromApi: (result: any) => Numbers;
  /** Runs the hand-written SQL (one query) and returns its numbers. */
  raw: (warehouse: ChdbWarehouse) => Promise<Numbers>;
}

const DAY_MS = 86_400_000;
const MICROS = 1_000_000;
/** The funnel's default conversion window, 14 days. */
const WINDOW_MICROS = 14 * 86_400 * MICROS;
/** Paths split a person's events into sessions at gaps this long. */
const SESSION_GAP_MICROS = 30 * 60 * MICROS;

const FUNNEL_STEPS = ['$pageview', 'item added', 'order placed'];
const PATH_START = 'https://example.com/pricing';

/** The current distinct id → person mapping of the replica; an event without one keeps the person it was ingested with. */
const DISTINCT_IDS = `(SELECT distinct_id, person_id FROM person_distinct_ids FINAL WHERE team_id = 1 AND is_deleted = 0)`;
const PERSON = `if(pdi.distinct_id = '', e.person_id, pdi.person_id)`;

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const warehouseTime = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace('Z', '000');

/** The dates every query asks for, fixed once so the API and the SQL read the same range whenever they run. */
interface Dates {
  today: number;
  /** `date_from` of the 30-day and 7-day ranges, `date_to` of all. */
  from30: string;
  from7: string;
  to: string;
}

function datesOf(now: Date): Dates {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return { today, from30: isoDay(today - 30 * DAY_MS), from7: isoDay(today - 7 * DAY_MS), to: isoDay(today) };
}

/** The bounds a date range of whole days reads: its first day's start and its last day's last millisecond. */
function rangeParams(from: string, to: string): Record<string, string> {
  return { from: warehouseTime(Date.parse(`${from}T00:00:00Z`)), to: warehouseTime(Date.parse(`${to}T00:00:00Z`) + DAY_MS - 1) };
}

const IN_RANGE = `e.team_id = 1 AND e.timestamp >= {from:DateTime64(6, 'UTC')} AND e.timestamp <= {to:DateTime64(6, 'UTC')}`;

/**
 * Per person who did step 1: `ts` and `st`, their funnel events' times and steps in order (ties:
 * lower step first), and for each attempt (a step-1 event, at position `starts[j]`) how many
 * steps it reached within the window: its step 2 is the first step-2 event after it, its step 3
 * the first step-3 event after that (`arrayReverseFill` finds both for every position in one
 * pass), each counted when it is within the window from the attempt's start. `reached` is the
 * most any attempt reached; `t12` and `t23` the attempts' conversion times in whole seconds.
 * `extraEvent` / `extraPerson` add columns to the event rows and the person rows.
 */
function funnelAttempts(extraEvent = '', extraPerson = ''): string {
  const [first, second, third] = FUNNEL_STEPS.map((step) => `'${step}'`);
  return `SELECT actor, ts, starts, p2, p3, n, arrayMax(n) AS reached,
    arrayMap((i, a) -> intDiv(ts[a], ${MICROS}) - intDiv(ts[i], ${MICROS}), starts, p2) AS t12,
    arrayMap((a, b) -> intDiv(ts[b], ${MICROS}) - intDiv(ts[a], ${MICROS}), p2, p3) AS t23${extraPerson}
  FROM (
    SELECT actor, ts, starts, p2, arrayMap(a -> if(a > 0, next3[a], 0), p2) AS p3,
      arrayMap((i, a, b) -> toUInt8(1 + (a > 0 AND ts[a] - ts[i] <= ${WINDOW_MICROS}) + (b > 0 AND ts[b] - ts[i] <= ${WINDOW_MICROS})), starts, p2, p3) AS n
      ${extraPerson ? ', bucket, seen' : ''}
    FROM (
      SELECT actor, arraySort(groupArray((at, step))) AS timeline, arrayMap(x -> x.1, timeline) AS ts, arrayMap(x -> x.2, timeline) AS st,
        arrayReverseFill(p -> p > 0, arrayMap((s, i) -> if(s = 2, i, 0), st, arrayEnumerate(st))) AS next2,
        arrayReverseFill(p -> p > 0, arrayMap((s, i) -> if(s = 3, i, 0), st, arrayEnumerate(st))) AS next3,
        arrayFilter(i -> st[i] = 1, arrayEnumerate(st)) AS starts, arrayMap(i -> next2[i], starts) AS p2
        ${extraEvent ? ", argMinIf(browser, at, browser != '') AS bucket, groupArray(browser) AS seen" : ''}
      FROM (
        SELECT ${PERSON} AS actor, toUnixTimestamp64Micro(e.timestamp) AS at,
          multiIf(e.event = ${first}, 1, e.event = ${second}, 2, 3) AS step${extraEvent}
        FROM events AS e LEFT JOIN ${DISTINCT_IDS} AS pdi ON pdi.distinct_id = e.distinct_id
        WHERE ${IN_RANGE} AND e.event IN (${first}, ${second}, ${third})
      )
      GROUP BY actor
      ${extraEvent ? '' : 'HAVING countIf(step = 1) > 0'}
    )
  )`;
}

/**
 * Per person: the steps reached, and for steps 2 and 3 the average and median conversion time
 * over the attempts that reached the most steps (as legacy funnels: every such attempt counts).
 */
function funnelPersons(breakdown: boolean): string {
  const best = (times: string, step: number, fn: string) =>
    `if(reached >= ${step}, arrayReduce('${fn}', arrayFilter((t, k) -> k = reached, ${times}, n)), NULL)`;
  return `SELECT reached, ${breakdown ? 'bucket, seen' : "'' AS bucket"},
    ${best('t12', 2, 'avg')} AS avg12, ${best('t23', 3, 'avg')} AS avg23,
    ${best('t12', 2, 'quantileExactInclusive(0.5)')} AS median12, ${best('t23', 3, 'quantileExactInclusive(0.5)')} AS median23
  FROM (${funnelAttempts(breakdown ? `, JSONExtractString(e.properties, '$browser') AS browser` : '', breakdown ? ', bucket, seen' : '')})`;
}

interface StepNumbers {
  counts: number[];
  averages: Array<number | null>;
  medians: Array<number | null>;
}

function funnelStepsSql(): string {
  return `SELECT bucket, countIf(reached >= 1) AS c1, countIf(reached >= 2) AS c2, countIf(reached >= 3) AS c3,
    avgIf(avg12, reached >= 2) AS a2, avgIf(avg23, reached >= 3) AS a3, quantileExactInclusiveIf(0.5)(median12, reached >= 2) AS m2, quantileExactInclusiveIf(0.5)(median23, reached >= 3) AS m3
  FROM (${funnelPersons(false)})
  GROUP BY bucket`;
}

/**
 * The steps by $browser as legacy funnels break them down: each person in the bucket of their
 * first non-empty browser, and the 25 browsers with the most step events (of anyone, ties: the
 * greater value first) kept, any other merged into `Other`. Aggregated per browser with
 * partial states, ranked from each browser row's event counts, then merged per kept bucket.
 */
function funnelStepsByBrowserSql(): string {
  const distinct = 'arrayDistinct(seen)';
  const byBrowser = `SELECT bucket, countIf(reached >= 1) AS c1, countIf(reached >= 2) AS c2, countIf(reached >= 3) AS c3,
      avgIfState(avg12, reached >= 2) AS a2, avgIfState(avg23, reached >= 3) AS a3,
      quantileExactInclusiveIfState(0.5)(median12, reached >= 2) AS m2, quantileExactInclusiveIfState(0.5)(median23, reached >= 3) AS m3,
      sumMap(${distinct}, arrayMap(v -> toUInt64(countEqual(seen, v)), ${distinct})) AS seen_counts
    FROM (${funnelPersons(true)})
    GROUP BY bucket`;
  const ranked = `SELECT *, arrayReduce('sumMap', groupArray(seen_counts.1) OVER (), groupArray(seen_counts.2) OVER ()) AS totals,
      arraySlice(arrayMap(x -> x.1, arrayReverseSort(x -> (x.2, x.1), arrayZip(totals.1, totals.2))), 1, 25) AS top
    FROM (${byBrowser})`;
  return `SELECT if(has(top, bucket), bucket, 'Other') AS kept, sum(c1) AS c1, sum(c2) AS c2, sum(c3) AS c3,
    avgIfMerge(a2) AS a2, avgIfMerge(a3) AS a3, quantileExactInclusiveIfMerge(0.5)(m2) AS m2, quantileExactInclusiveIfMerge(0.5)(m3) AS m3
  FROM (${ranked})
  GROUP BY kept
  HAVING c1 > 0`;
}

const nullable = (value: unknown) => (value === null || value === undefined || (typeof value === 'number' && Number.isNaN(value)) ? null : Number(value));

function stepRowNumbers(row: Record<string, unknown>): StepNumbers {
  const some = Number(row.c2) > 0;
  const all = Number(row.c3) > 0;
  return {
    counts: [Number(row.c1), Number(row.c2), Number(row.c3)],
    averages: [null, some ? nullable(row.a2) : null, all ? nullable(row.a3) : null],
    medians: [null, some ? nullable(row.m2) : null, all ? nullable(row.m3) : null],
  };
}

function apiStepNumbers(steps: any[]): StepNumbers {
  return {
    counts: steps.map((step) => step.count),
    averages: steps.map((step) => step.average_conversion_time),
    medians: steps.map((step) => step.median_conversion_time),
  };
}

/** Funnel trends: per entrance day, the persons who entered (an attempt began that day) and who of them converted in one. */
function funnelTrendsSql(): string {
  return `SELECT entered.1 AS day, countIf(entered.2 = 0) AS reached_from, countIf(entered.2 = 1) AS reached_to
  FROM (
    SELECT arrayMap(i -> intDiv(ts[i], ${DAY_MS * 1000}), starts) AS days,
      arrayConcat(arrayMap(d -> (d, 0), arrayDistinct(days)), arrayMap(d -> (d, 1), arrayDistinct(arrayFilter((d, k) -> k = 3, days, n)))) AS pairs
    FROM (${funnelAttempts()})
  )
  ARRAY JOIN pairs AS entered
  GROUP BY day`;
}

/**
 * Time to convert from step 1 to 3: each converted person's sample (their average step-1→2 plus
 * step-2→3 time), binned as legacy funnels bin them (cube root of the samples for a count, from
 * the shortest rounded down, equal widths rounded up, one bin more), in one pass.
 */
function timeToConvertSql(): string {
  return `SELECT length(samples) AS count, arrayAvg(samples) AS average, floor(arrayMin(samples)) AS low, ceil(arrayMax(samples)) AS high,
    least(60, greatest(1, toUInt64(ceil(cbrt(count))))) AS bin_count,
    if(ceil((high - low) / bin_count) > 0, ceil((high - low) / bin_count), 60) AS width,
    arrayMap(sample -> toInt64(floor((sample - low) / width)), samples) AS bins,
    arrayMap(k -> (low + k * width, countEqual(bins, k)), range(toUInt64(bin_count + 1))) AS histogram
  FROM (SELECT groupArray(avg12 + avg23) AS samples FROM (${funnelPersons(false)}) WHERE reached = 3)`;
}

/**
 * Retention over `periods` periods of `periodDays` days from `start`: per person a bitmask of
 * the periods they were active in (target and returning event are both $pageview) and one of
 * their cohorts (recurring: the same; first time: the period of their first-ever pageview, if
 * it is in the window). Cohort c's value k counts the persons with bit c of their cohorts and
 * bit c + k of their activity, computed once per distinct pair of masks, not once per person.
 */
function retentionSql(periods: number, periodDays: number, firstTime: boolean): string {
  const start = `{start:DateTime64(6, 'UTC')}`;
  const bit = (at: string) => `bitShiftLeft(toUInt64(1), toUInt8(intDiv(dateDiff('day', ${start}, ${at}), ${periodDays})))`;
  const persons = firstTime
    ? `SELECT min(e.timestamp) AS first_at, groupBitOrIf(${bit('e.timestamp')}, e.timestamp >= ${start}) AS active,
         if(first_at >= ${start}, ${bit('first_at')}, toUInt64(0)) AS cohorts
       FROM events AS e LEFT JOIN ${DISTINCT_IDS} AS pdi ON pdi.distinct_id = e.distinct_id
       WHERE e.team_id = 1 AND e.event = '$pageview' AND e.timestamp <= {end:DateTime64(6, 'UTC')}
       GROUP BY ${PERSON}`
    : `SELECT groupBitOr(${bit('e.timestamp')}) AS active, active AS cohorts
       FROM events AS e LEFT JOIN ${DISTINCT_IDS} AS pdi ON pdi.distinct_id = e.distinct_id
       WHERE e.team_id = 1 AND e.event = '$pageview' AND e.timestamp >= ${start} AND e.timestamp <= {end:DateTime64(6, 'UTC')}
       GROUP BY ${PERSON}`;
  const value = `toUInt64(bitTest(cohorts, intDiv(j, ${periods})) AND (j % ${periods} = 0 OR bitTest(active, intDiv(j, ${periods}) + j % ${periods})))`;
  return `SELECT sumForEach(arrayMap(j -> persons * ${value}, range(${periods * periods}))) AS counts
  FROM (SELECT cohorts, active, count() AS persons FROM (${persons}) GROUP BY cohorts, active)`;
}

/** The API's retention table as counts[cohort][interval], as far as each row goes. */
function apiRetention(result: any[]): number[][] {
  return result.map((row) => row.values.map((value: { count: number }) => value.count));
}

/** The flat counts of retentionSql as the legacy table's triangle: cohort c has periods − c values. */
function rawRetention(counts: Array<number | string>, periods: number): number[][] {
  return Array.from({ length: periods }, (_, cohort) => Array.from({ length: periods - cohort }, (_, interval) => Number(counts[cohort * periods + interval])));
}

/**
 * $pageview paths: per person their pageviews' URLs (one trailing slash off) in time order, split
 * into sessions at 30-minute gaps; consecutive repeats keep their last; each session path from
 * its start (or from its first `start` item) to its fifth item. All with flat arrays per person:
 * every item knows its session's first kept position, so its position in the path is a
 * subtraction, and only the edges are unnested.
 */
function pathsSql(start: string | null): string {
  const url = `JSONExtractString(e.properties, '$current_url')`;
  const item = `if(length(${url}) > 1 AND endsWith(${url}, '/'), substring(${url}, 1, length(${url}) - 1), ${url})`;
  const anchor = start
    ? `arrayMap(j -> if(is_start[j] AND starts_before[j] = 0, j, 0), arrayEnumerate(kept)) AS first_start,
       arrayFill(p -> p > 0, first_start) AS last_first_start,
       arrayMap((j, s) -> if(s >= session_first[j], j - s + 1, 0), arrayEnumerate(kept), last_first_start) AS position`
    : 'arrayMap(j -> j - session_first[j] + 1, arrayEnumerate(kept)) AS position';
  const startColumns = start
    ? `arrayMap(x -> x.2 = {start_point:String}, kept) AS is_start,
       arrayCumSum(is_start) AS starts_upto,
       arrayMap(j -> starts_upto[j] - is_start[j] - (starts_upto[session_first[j]] - is_start[session_first[j]]), arrayEnumerate(kept)) AS starts_before,`
    : '';
  return `SELECT concat(toString(edge.1 - 1), '_', edge.2) AS source, concat(toString(edge.1), '_', edge.3) AS target,
    count() AS value, avg(edge.4 / 1000) AS average_conversion_time
  FROM (
    SELECT arrayFilter(x -> x.1 >= 2 AND x.1 <= 5,
        arrayMap((j, p) -> (p, kept[greatest(j - 1, 1)].2, kept[j].2, kept[j].1 - kept[greatest(j - 1, 1)].1), arrayEnumerate(kept), position)) AS edges
    FROM (
      SELECT kept,
        arrayFill(p -> p > 0, arrayMap((x, j) -> if(j = 1 OR x.3 != kept[j - 1].3, j, 0), kept, arrayEnumerate(kept))) AS session_first,
        ${startColumns}
        ${anchor}
      FROM (
        SELECT arraySort(groupArray((at, item))) AS timeline,
          arrayCumSum(arrayMap((x, i) -> i = 1 OR x.1 - timeline[i - 1].1 >= ${SESSION_GAP_MICROS}, timeline, arrayEnumerate(timeline))) AS session,
          arrayFilter((x, i) -> i = length(timeline) OR session[i + 1] != session[i] OR timeline[i + 1].2 != x.2, arrayMap((x, s) -> (x.1, x.2, s), timeline, session), arrayEnumerate(timeline)) AS kept
        FROM (
          SELECT ${PERSON} AS actor, toUnixTimestamp64Micro(e.timestamp) AS at, ${item} AS item
          FROM events AS e LEFT JOIN ${DISTINCT_IDS} AS pdi ON pdi.distinct_id = e.distinct_id
          WHERE ${IN_RANGE} AND e.event = '$pageview'
        )
        GROUP BY actor
      )
    )
  )
  ARRAY JOIN edges AS edge
  GROUP BY source, target
  ORDER BY value DESC, source, target
  LIMIT 50`;
}

interface Edge {
  source: string;
  target: string;
  value: number;
  average_conversion_time: number;
}

/** Without edge weights legacy paths keep only the edges a first step still reaches. */
function connectedToFirstStep(edges: Edge[]): Edge[] {
  const reached = new Set(edges.filter((edge) => edge.source.startsWith('1_')).map((edge) => edge.source));
  for (let grew = true; grew; ) {
    grew = false;
    for (const edge of edges) {
      if (reached.has(edge.source) && !reached.has(edge.target)) {
        reached.add(edge.target);
        grew = true;
      }
    }
  }
  return edges.filter((edge) => reached.has(edge.source));
}

function edgeNumbers(edges: Edge[]): Edge[] {
  return edges.map((edge) => ({
    source: edge.source,
    target: edge.target,
    value: Number(edge.value),
    average_conversion_time: Number(edge.average_conversion_time),
  }));
}

export function insightCases(dates: Dates): InsightCase[] {
  const steps = FUNNEL_STEPS.map((id, order) => ({ id, type: 'events', order }));
  const funnel = { insight: 'FUNNELS', events: steps, date_from: dates.from30, date_to: dates.to };
  const range30 = rangeParams(dates.from30, dates.to);
  const range7 = rangeParams(dates.from7, dates.to);
  const query = <T>(warehouse: ChdbWarehouse, sql: string, params: Record<string, unknown>) => warehouse.query<T>(sql, params);

  const dayRetention = (firstTime: boolean): InsightCase => {
    const end = dates.today + DAY_MS;
    const params = { start: warehouseTime(end - 11 * DAY_MS), end: warehouseTime(end) };
    return {
      name: `retention: 11 days, ${firstTime ? 'first time' : 'recurring'}`,
      path: '/api/projects/1/insights/retention/',
      body: { date_to: dates.to, period: 'Day', total_intervals: 11, retention_type: firstTime ? 'retention_first_time' : 'retention_recurring' },
      fromApi: apiRetention,
      raw: async (warehouse) => rawRetention((await query<{ counts: string[] }>(warehouse, retentionSql(11, 1, firstTime), params))[0]!.counts, 11),
    };
  };
  const weekEnd = dates.today + 7 * DAY_MS;
  const weekBack = weekEnd - 77 * DAY_MS;
  // Weeks start on Sunday, the project's default.
  const weekStart = weekBack - new Date(weekBack).getUTCDay() * DAY_MS;

  return [
    {
      name: 'funnel: 3 steps, 30 days',
      path: '/api/projects/1/insights/funnel/',
      body: funnel,
      fromApi: (result) => ({ '': apiStepNumbers(result) }),
      raw: async (warehouse) => {
        const rows = await query<Record<string, unknown>>(warehouse, funnelStepsSql(), range30);
        return Object.fromEntries(rows.map((row) => [String(row.bucket), stepRowNumbers(row)]));
      },
    },
    {
      name: 'funnel: 3 steps by $browser',
      path: '/api/projects/1/insights/funnel/',
      body: { ...funnel, breakdown: '$browser', breakdown_type: 'event' },
      fromApi: (result) => Object.fromEntries(result.map((series: any[]) => [series[0].breakdown_value[0], apiStepNumbers(series)])),
      raw: async (warehouse) => {
        const rows = await query<Record<string, unknown>>(warehouse, funnelStepsByBrowserSql(), range30);
        return Object.fromEntries(rows.map((row) => [String(row.kept), stepRowNumbers(row)]));
      },
    },
    {
      name: 'funnel trends: by day',
      path: '/api/projects/1/insights/funnel/',
      body: { ...funnel, funnel_viz_type: 'trends', interval: 'day' },
      fromApi: (result) => Object.fromEntries(result[0].days.map((day: string, index: number) => [day, result[0].data[index]])),
      raw: async (warehouse) => {
        const rows = await query<{ day: string; reached_from: string; reached_to: string }>(warehouse, funnelTrendsSql(), range30);
        const byDay = new Map(rows.map((row) => [isoDay(Number(row.day) * DAY_MS), row]));
        const rates: Record<string, number> = {};
        for (let day = Date.parse(`${dates.from30}T00:00:00Z`); day <= dates.today; day += DAY_MS) {
          const row = byDay.get(isoDay(day));
          const from = Number(row?.reached_from ?? 0);
          rates[isoDay(day)] = from > 0 ? Math.round((Number(row!.reached_to) / from) * 10_000) / 100 : 0;
        }
        return rates;
      },
    },
    {
      name: 'funnel: time to convert',
      path: '/api/projects/1/insights/funnel/',
      body: { ...funnel, funnel_viz_type: 'time_to_convert' },
      fromApi: (result) => result,
      raw: async (warehouse) => {
        const [row] = await query<{ count: string; average: number; histogram: Array<[number, string]> }>(warehouse, timeToConvertSql(), range30);
        if (!row || Number(row.count) === 0) return { bins: [], average_conversion_time: null };
        return {
          bins: row.histogram.map(([start, persons]) => [Number(start), Number(persons)]),
          average_conversion_time: Math.round(row.average * 100) / 100,
        };
      },
    },
    dayRetention(false),
    dayRetention(true),
    {
      name: 'retention: weekly, 11 weeks',
      path: '/api/projects/1/insights/retention/',
      body: { date_to: dates.to, period: 'Week', total_intervals: 11 },
      fromApi: apiRetention,
      raw: async (warehouse) => {
        const params = { start: warehouseTime(weekStart), end: warehouseTime(weekEnd) };
        return rawRetention((await query<{ counts: string[] }>(warehouse, retentionSql(11, 7, false), params))[0]!.counts, 11);
      },
    },
    {
      name: 'paths: $pageview, 7 days',
      path: '/api/projects/1/insights/path/',
      body: { include_event_types: ['$pageview'], date_from: dates.from7, date_to: dates.to },
      fromApi: (result) => edgeNumbers(result),
      raw: async (warehouse) => edgeNumbers(connectedToFirstStep(await query<Edge>(warehouse, pathsSql(null), range7))),
    },
    {
      name: 'paths: $pageview from a start point',
      path: '/api/projects/1/insights/path/',
      body: { include_event_types: ['$pageview'], date_from: dates.from7, date_to: dates.to, start_point: PATH_START },
      fromApi: (result) => edgeNumbers(result),
      raw: async (warehouse) => edgeNumbers(connectedToFirstStep(await query<Edge>(warehouse, pathsSql(PATH_START), { ...range7, start_point: PATH_START }))),
    },
  ];
}

/**
 * Where two answers differ, as paths into them: integers and text must be equal, fractions
 * equal to 1e-9 relative (the averages are sums of floats, and ClickHouse adds them up in
 * whatever order its threads finish). Medians are exact on both sides, so they are equal too.
 */
export function differences(api: unknown, raw: unknown, at = ''): string[] {
  if (typeof api === 'number' && typeof raw === 'number') {
    const relative = Math.abs(api - raw) / Math.max(Math.abs(api), Math.abs(raw), Number.MIN_VALUE);
    if (Number.isInteger(api) && Number.isInteger(raw)) return api === raw ? [] : [`${at}: API ${api}, SQL ${raw}`];
    return relative <= 1e-9 ? [] : [`${at}: API ${api}, SQL ${raw}`];
  }
  if (Array.isArray(api) && Array.isArray(raw)) {
    const found = api.length === raw.length ? [] : [`${at}: API has ${api.length} items, SQL ${raw.length}`];
    for (let index = 0; index < Math.min(api.length, raw.length); index++) found.push(...differences(api[index], raw[index], `${at}[${index}]`));
    return found;
  }
  if (api && raw && typeof api === 'object' && typeof raw === 'object') {
    const keys = new Set([...Object.keys(api), ...Object.keys(raw)]);
    return [...keys].flatMap((key) => differences((api as Record<string, unknown>)[key], (raw as Record<string, unknown>)[key], `${at}.${key}`));
  }
  return api === raw ? [] : [`${at}: API ${JSON.stringify(api)}, SQL ${JSON.stringify(raw)}`];
}

/** Each case's numbers through the API (server running), then through its SQL (server stopped); leaves the server stopped. */
export async function checkCases(server: TallyServer, cases: readonly InsightCase[]): Promise<Map<string, string[]>> {
  const fromApi = new Map<string, Numbers>();
  for (const entry of cases) {
    const response = await server.post(entry.path, entry.body);
    if (response.status !== 200) throw new Error(`${entry.name}: ${response.status} ${response.text}`);
    fromApi.set(entry.name, entry.fromApi((response.body as { result: unknown }).result));
  }
  await server.stop();
  const warehouse = openRawWarehouse(server.dataDir);
  const found = new Map<string, string[]>();
  try {
    for (const entry of cases) found.set(entry.name, differences(fromApi.get(entry.name), await entry.raw(warehouse)));
  } finally {
    await warehouse.close();
  }
  return found;
}

/**
 * The insights suite: the trends suite's kind of traffic with visits (walks of pageviews, many
 * going on to sign up, add items and order) through capture, then funnels, retention and paths
 * through the API and as hand-written ClickHouse SQL of the same semantics, whose numbers must
 * be the API's before either is timed settled. The fresh timings come first, right after the
 * load, and are reported only if the numbers, checked on the settled data, agree.
 */
export async function insightsSuite(options: SuiteOptions): Promise<Measurement[]> {
  const cases = insightCases(datesOf(new Date()));
  const timed: ApiRawCase[] = cases.map((entry) => ({
    name: entry.name,
    api: async (running) => {
      const response = await callApi(running, 'POST', entry.path, entry.body);
      if (response.status !== 200) throw new Error(`${entry.name}: ${response.status} ${response.text}`);
    },
    raw: entry.raw,
  }));
  const { server, seconds, loadPeakMb, reusedFrom, fresh } = await loadedServer(
    'insights',
    options.events,
    options.dataDir,
    () => generateEvents({ events: options.events, distinctIds: 100_000, days: 90, identifyShare: 0.1, seed: 7, end: new Date(), visitShare: 0.05 }),
    'loading through capture',
    (running) => timeFresh(running, timed),
  );
  const measurements: Measurement[] = [loadMeasurement('insights', `load ${options.events} events through capture`, options.events / seconds, reusedFrom)];
  const found = await checkCases(server, cases);
  const wrong = [...found].filter(([, differing]) => differing.length > 0);
  if (wrong.length > 0) {
    await (options.dataDir ? server.stop() : server.dispose());
    throw new Error(`the API and the SQL differ:\n${wrong.map(([name, differing]) => `${name}:\n  ${differing.slice(0, 10).join('\n  ')}`).join('\n')}`);
  }
  console.error(`the API's numbers equal the SQL's for all ${cases.length} queries`);
  await server.start();
  const settled = await timeApiAgainstRaw(server, timed);
  measurements.push(...comparisons('insights', timed, settled, fresh));
  await (options.dataDir ? server.stop() : server.dispose());
  measurements.push(...peakMeasurements('insights', loadPeakMb, settled.peakMb, reusedFrom));
  return measurements;
}
