import { limitClause, type ActorPage } from '../actors/actor-page.js';
import { EventScope, type EventScopeDefinition } from '../actors/event-scope.js';
import { rawPropertyValue } from '../../query/property-filters.js';
import { funnelPathWindowSql, type FunnelPathWindowQuery } from './funnel-path-window.js';
import type { PathFilter } from './path-filter.js';

/** A gap this long between two events starts a new session path (insights.md §6.2). */
const SESSION_GAP_MICROS = 30 * 60 * 1_000_000;

/** `*` matches anything; every other character stands for itself. */
function globToRegex(pattern: string): string {
  return `^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`;
}

/** The path item of an event: URL (one trailing slash off) for pageviews, screen name for screens, else the event name. */
function pathItem(filter: PathFilter, scope: EventScope): string {
  const { params, source } = scope;
  const url = rawPropertyValue(source.eventProperties, '$current_url', params);
  const screen = rawPropertyValue(source.eventProperties, '$screen_name', params);
  let item = `multiIf(e.event = '$pageview', if(length(${url}) > 1 AND endsWith(${url}, '/'), substring(${url}, 1, length(${url}) - 1), ${url}),
    e.event = '$screen', ${screen}, e.event)`;
  for (const rule of filter.cleaning) {
    item = `replaceRegexpAll(${item}, ${params.add(rule.regex, 'String')}, ${params.add(rule.alias, 'String')})`;
  }
  if (filter.groupings.length > 0) {
    const branches = filter.groupings.flatMap((pattern) => [
      `match(grouped_item, ${params.add(globToRegex(pattern), 'String')})`,
      params.add(pattern, 'String'),
    ]);
    item = `(arrayMap(grouped_item -> multiIf(${branches.join(', ')}, grouped_item), [${item}])[1])`;
  }
  return item;
}

function eventTypeCondition(filter: PathFilter): string | null {
  if (filter.eventTypes.length === 0) return null;
  const parts = filter.eventTypes.map((type) =>
    type === 'custom_event' ? `NOT startsWith(e.event, '$')` : type === '$pageview' ? `e.event = '$pageview'` : `e.event = '$screen'`,
  );
  return `(${parts.join(' OR ')})`;
}

/** The session path cut to the start and end points and the step limit (insights.md §6.2 step 4). */
function truncatedPath(filter: PathFilter, scope: EventScope): { path: string; keep: string } {
  const limit = scope.params.add(filter.stepLimit, 'Int64');
  const start = filter.startPoint === null ? null : scope.params.add(filter.startPoint, 'String');
  const end = filter.endPoint === null ? null : scope.params.add(filter.endPoint, 'String');
  if (start && end) {
    const from = `indexOf(deduped, ${start})`;
    const to = `arrayFirstIndex((x, i) -> i > ${from} AND x = ${end}, deduped, arrayEnumerate(deduped))`;
    return { path: `arraySlice(arraySlice(deduped, ${from}, ${to} - ${from} + 1), 1, ${limit})`, keep: `${from} > 0 AND ${to} > 0` };
  }
  if (start) return { path: `arraySlice(deduped, indexOf(deduped, ${start}), ${limit})`, keep: `indexOf(deduped, ${start}) > 0` };
  if (end) {
    const to = `indexOf(deduped, ${end})`;
    return { path: `arraySlice(deduped, greatest(1, ${to} - ${limit} + 1), least(${to}, ${limit}))`, keep: `${to} > 0` };
  }
  return { path: `arraySlice(deduped, 1, ${limit})`, keep: '1' };
}

/** Which session paths the node keys select: an edge from or to a node, one exact edge, or paths ending at a node. */
function keyCondition(filter: PathFilter, scope: EventScope): string {
  const at = (position: number, item: string) =>
    `length(path) >= ${scope.params.add(position, 'UInt64')} AND path[${scope.params.add(position, 'UInt64')}] = ${scope.params.add(item, 'String')}`;
  const { startKey, endKey, dropoffKey } = filter;
  if (dropoffKey) return `${at(dropoffKey.position, dropoffKey.item)} AND length(path) = ${scope.params.add(dropoffKey.position, 'UInt64')}`;
  const conditions: string[] = [];
  if (startKey) conditions.push(`${at(startKey.position, startKey.item)} AND length(path) > ${scope.params.add(startKey.position, 'UInt64')}`);
  if (endKey) conditions.push(endKey.position < 2 ? '0' : at(endKey.position, endKey.item));
  if (startKey && endKey && endKey.position !== startKey.position + 1) conditions.push('0');
  return conditions.length === 0 ? '1' : conditions.map((condition) => `(${condition})`).join(' AND ');
}

export interface PathActorsQuery {
  scope: Omit<EventScopeDefinition, 'properties'>;
  filter: PathFilter;
  /** Funnel paths: the funnel whose persons' step windows restrict the events. */
  funnel: Omit<FunnelPathWindowQuery, 'type'> | null;
  page: ActorPage;
}

/**
 * The persons of a paths node or edge. Each person's events become path items in time order,
 * split into sessions at 30-minute gaps, consecutive repeats collapsed, cut to the start and end
 * points and the step limit; a person is in when any of their session paths has the node.
 */
export async function pathActorsSql(query: PathActorsQuery): Promise<{ sql: string; params: Record<string, unknown> }> {
  const { filter } = query;
  const scope = await EventScope.create({ ...query.scope, properties: filter.properties });
  const { params } = scope;
  const item = pathItem(filter, scope);
  const conditions = [eventTypeCondition(filter)].filter((condition): condition is string => condition !== null);
  const excluded = filter.excludeEvents.length > 0 ? `WHERE item NOT IN ${params.add(filter.excludeEvents, 'Array(String)')}` : '';
  const { path, keep } = truncatedPath(filter, scope);
  const gap = params.add(SESSION_GAP_MICROS, 'Int64');
  const funnelPaths = filter.funnelPaths && query.funnel ? await funnelPathWindowSql({ ...query.funnel, type: filter.funnelPaths.type }, params) : null;
  const events = `SELECT ${scope.source.personId} AS actor, toUnixTimestamp64Micro(e.timestamp) AS at, ${item} AS item
          ${scope.fromWhere(conditions)}`;
  const windowed = funnelPaths
    ? `SELECT ev.actor AS actor, ev.at AS at, ev.item AS item FROM (${events}) AS ev
          INNER JOIN (${funnelPaths}) AS reached ON reached.funnel_actor = ev.actor
          WHERE ev.at >= reached.window_start AND ev.at <= reached.window_end`
    : events;
  const sql = `SELECT toString(actor) AS actor_id
FROM (
  SELECT actor, ${path} AS path
  FROM (
    SELECT actor, arrayFilter((x, i) -> i = 1 OR x != session_items[i - 1], session_items, arrayEnumerate(session_items)) AS deduped
    FROM (
      SELECT actor,
        arraySort(x -> x.1, groupArray((at, item))) AS timeline,
        arraySplit((x, gap_before) -> gap_before, arrayMap(x -> x.2, timeline),
          arrayMap((x, i) -> i > 1 AND x.1 - timeline[i - 1].1 >= ${gap}, timeline, arrayEnumerate(timeline))) AS sessions
      FROM (
        SELECT actor, at, item FROM (
          ${windowed}
        ) ${excluded}
      )
      GROUP BY actor
    )
    ARRAY JOIN sessions AS session_items
  )
  WHERE ${keep}
)
WHERE ${keyCondition(filter, scope)}
GROUP BY actor
ORDER BY actor
${limitClause(query.page, params)}`;
  return { sql, params: params.all };
}
