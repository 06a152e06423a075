import { eventPropertyValue } from '../../query/property-filters.js';
import { EventScope, type EventScopeDefinition } from '../actors/event-scope.js';
import { funnelPathWindowSql, type FunnelPathSource } from './funnel-path-window.js';
import type { PathCleaningRule, PathFilter } from './path-filter.js';

/** A gap this long between two events starts a new session path, as in PostHog's paths. */
const SESSION_GAP_MICROS = 30 * 60 * 1_000_000;

export interface PathSessionQuery {
  scope: Omit<EventScopeDefinition, 'properties'>;
  filter: PathFilter;
  /** The project's cleaning rules, applied before the filter's own when `path_replacements` is set. */
  projectCleaning: PathCleaningRule[];
  /** Funnel paths: the funnel whose persons' step windows restrict the events. */
  funnel: FunnelPathSource | null;
}

export interface PathSessions {
  scope: EventScope;
  sql: string;
}

/**
 * A grouping pattern as a regular expression: `*` matches anything, every other character
 * stands for itself; like PostHog's, it may match anywhere in the item.
 */
function groupingRegex(pattern: string): string {
  return pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*');
}

/**
 * The path item of an event: the URL for pageviews (one trailing slash off, except for "/"),
 * the screen name for screens, else the event name; then the cleaning rules in order, then the
 * grouping patterns.
 */
function pathItem(query: PathSessionQuery, scope: EventScope): string {
  const { params, source } = scope;
  const url = eventPropertyValue(source, '$current_url', params);
  const screen = eventPropertyValue(source, '$screen_name', params);
  let item = `multiIf(e.event = '$pageview', arrayMap(url -> if(length(url) > 1, replaceRegexpOne(url, '/$', ''), url), [${url}])[1],
    e.event = '$screen', ${screen}, e.event)`;
  const rules = [...(query.filter.pathReplacements ? query.projectCleaning : []), ...query.filter.cleaning];
  for (const rule of rules) {
    item = `replaceRegexpAll(${item}, ${params.add(rule.regex, 'String')}, ${params.add(rule.alias, 'String')})`;
  }
  const { groupings } = query.filter;
  if (groupings.length > 0) {
    // Of several patterns an item matches, the last one wins, as in PostHog.
    const branches = [...groupings]
      .reverse()
      .flatMap((pattern) => [`match(ungrouped, ${params.add(groupingRegex(pattern), 'String')})`, params.add(pattern, 'String')]);
    item = `arrayMap(ungrouped -> multiIf(${branches.join(', ')}, ungrouped), [${item}])[1]`;
  }
  return item;
}

/** Which events become path items: the event types and custom events asked for, else every event. */
function eventCondition(filter: PathFilter, scope: EventScope): string | null {
  const parts: string[] = filter.eventTypes.map((type) =>
    type === 'custom_event' ? `NOT startsWith(e.event, '$')` : type === '$pageview' ? `e.event = '$pageview'` : `e.event = '$screen'`,
  );
  if (filter.customEvents.length > 0) parts.push(`e.event IN ${scope.params.add(filter.customEvents, 'Array(String)')}`);
  return parts.length === 0 ? null : `(${parts.join(' OR ')})`;
}

/**
 * A lone start or end point is matched as a URL item is stored: without one trailing slash
 * (except "/"), so `/pricing/` finds `/pricing`. PostHog leaves both points as given when both are set.
 */
function withoutTrailingSlash(point: string): string {
  return point.length > 1 && point.endsWith('/') ? point.slice(0, -1) : point;
}

/**
 * The session path cut to the start and end points and the step limit, as `path` and the
 * matching `times`, from the compacted `items` and `at`; `keep` drops the sessions without the
 * points. With both points the path runs from the start to the first end after it, and a path
 * longer than the limit keeps its first and last halves around a `...` node.
 */
function truncated(filter: PathFilter, scope: EventScope): { columns: string; keep: string } {
  const { params } = scope;
  const limit = params.add(filter.stepLimit, 'Int64');
  const alone = filter.startPoint === null || filter.endPoint === null;
  const start = filter.startPoint === null ? null : params.add(alone ? withoutTrailingSlash(filter.startPoint) : filter.startPoint, 'String');
  const end = filter.endPoint === null ? null : params.add(alone ? withoutTrailingSlash(filter.endPoint) : filter.endPoint, 'String');
  if (start && end) {
    const half = `intDiv(${limit}, 2)`;
    return {
      columns: `indexOf(items, ${start}) AS start_index,
      arraySlice(items, start_index) AS from_start, arraySlice(at, start_index) AS at_from_start,
      indexOf(from_start, ${end}) AS end_index,
      arrayResize(from_start, end_index) AS bounded, arrayResize(at_from_start, end_index) AS at_bounded,
      if(length(bounded) > ${limit}, arrayConcat(arraySlice(bounded, 1, ${half}), ['...'], arraySlice(bounded, -${half}, ${half})), bounded) AS path,
      if(length(bounded) > ${limit}, arrayConcat(arraySlice(at_bounded, 1, ${half}), [at_bounded[1 + ${half}]], arraySlice(at_bounded, -${half}, ${half})), at_bounded) AS times`,
      keep: 'start_index > 0 AND end_index > 0',
    };
  }
  if (start) {
    return {
      columns: `indexOf(items, ${start}) AS point_index,
      arraySlice(items, point_index, ${limit}) AS path, arraySlice(at, point_index, ${limit}) AS times`,
      keep: 'point_index > 0',
    };
  }
  if (end) {
    const from = `greatest(1, point_index - ${limit} + 1)`;
    const length = `least(point_index, ${limit})`;
    return {
      columns: `indexOf(items, ${end}) AS point_index,
      arraySlice(items, ${from}, ${length}) AS path, arraySlice(at, ${from}, ${length}) AS times`,
      keep: 'point_index > 0',
    };
  }
  return { columns: `arraySlice(items, 1, ${limit}) AS path, arraySlice(at, 1, ${limit}) AS times`, keep: '1' };
}

/**
 * THE per-session SQL of paths, which the edges count and the actors endpoint lists: one row
 * per (actor, session path) with `actor`, `path` (its items in order) and `times` (when each
 * item happened, microseconds). Each person's events become path items in time order, split
 * into sessions at 30-minute gaps (the funnel's conversion window for funnel paths, as PostHog
 * does), and consecutive repeats collapse into their last event; then the start and end points
 * and the step limit cut the path. Everything is folded per person with array functions in one
 * GROUP BY.
 */
export async function pathSessionsSql(query: PathSessionQuery): Promise<PathSessions> {
  const { filter } = query;
  const scope = await EventScope.create({ ...query.scope, properties: filter.properties });
  const { params } = scope;
  const item = pathItem(query, scope);
  const condition = eventCondition(filter, scope);
  const excluded = filter.excludeEvents.length > 0 ? `WHERE item NOT IN ${params.add(filter.excludeEvents, 'Array(String)')}` : '';
  const { columns, keep } = truncated(filter, scope);
  const gap = params.add(query.funnel ? query.funnel.funnel.windowSeconds * 1_000_000 : SESSION_GAP_MICROS, 'Int64');
  const windows = filter.funnelPaths && query.funnel ? await funnelPathWindowSql(filter.funnelPaths.type, query.funnel, params) : null;
  const events = `SELECT ${scope.source.personId} AS actor, toUnixTimestamp64Micro(e.timestamp) AS at, ${item} AS item
      ${scope.fromWhere(condition ? [condition] : [])}`;
  const windowed = windows
    ? `SELECT ev.actor AS actor, ev.at AS at, ev.item AS item FROM (${events}) AS ev
      INNER JOIN (${windows}) AS reached ON reached.funnel_actor = ev.actor
      WHERE ev.at >= reached.window_start AND ev.at <= reached.window_end`
    : events;
  const sql = `SELECT actor, path, times
FROM (
  SELECT actor, arrayMap(x -> x.2, compacted) AS items, arrayMap(x -> x.1, compacted) AS at,
    ${columns}
  FROM (
    SELECT actor, arrayFilter((x, i) -> i = length(session) OR x.2 != session[i + 1].2, session, arrayEnumerate(session)) AS compacted
    FROM (
      SELECT actor, arraySort(groupArray((at, item))) AS timeline,
        arraySplit((x, gap_before) -> gap_before, timeline,
          arrayMap((x, i) -> i > 1 AND x.1 - timeline[i - 1].1 >= ${gap}, timeline, arrayEnumerate(timeline))) AS sessions
      FROM (SELECT actor, at, item FROM (${windowed}) ${excluded})
      GROUP BY actor
    )
    ARRAY JOIN sessions AS session
  )
)
WHERE ${keep}`;
  return { scope, sql };
}
