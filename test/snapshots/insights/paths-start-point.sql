-- paths-start-point: the warehouse queries of this legacy filter, at 2026-01-15T12:00:00.000Z
-- {"include_event_types":["$pageview"],"date_from":"2026-01-08","date_to":"2026-01-15","start_point":"/pricing","step_limit":4}
-- Rewrite: npm run build && UPDATE_SNAPSHOTS=1 node --test dist/test/unit/insight-sql-snapshots.test.js

-- query 1 of 1 (query)
SELECT concat(toString(position - 1), '_', path[position - 1]) AS source, concat(toString(position), '_', path[position]) AS target,
  count() AS value, avg((times[position] - times[position - 1]) / 1000) AS average_conversion_time
FROM (SELECT actor, path, times
FROM (
  SELECT actor, arrayMap(x -> x.2, compacted) AS items, arrayMap(x -> x.1, compacted) AS at,
    indexOf(items, {p_5:String}) AS point_index,
      arraySlice(items, point_index, {p_4:Int64}) AS path, arraySlice(at, point_index, {p_4:Int64}) AS times
  FROM (
    SELECT actor, arrayFilter((x, i) -> i = length(session) OR x.2 != session[i + 1].2, session, arrayEnumerate(session)) AS compacted
    FROM (
      SELECT actor, arraySort(groupArray((at, item))) AS timeline,
        arraySplit((x, gap_before) -> gap_before, timeline,
          arrayMap((x, i) -> i > 1 AND x.1 - timeline[i - 1].1 >= {p_6:Int64}, timeline, arrayEnumerate(timeline))) AS sessions
      FROM (SELECT actor, at, item FROM (SELECT if(pdi.distinct_id = '', e.person_id, pdi.person_id) AS actor, toUnixTimestamp64Micro(e.timestamp) AS at, multiIf(e.event = '$pageview', arrayMap(url -> if(length(url) > 1, replaceRegexpOne(url, '/$', ''), url), [if(notEmpty(JSONExtractString(e.properties, {p_2:String})), JSONExtractString(e.properties, {p_2:String}), arrayMap(raw_json_value -> if(startsWith(raw_json_value, '"'), '', raw_json_value), [JSONExtractRaw(e.properties, {p_2:String})])[1])])[1],
    e.event = '$screen', if(notEmpty(JSONExtractString(e.properties, {p_3:String})), JSONExtractString(e.properties, {p_3:String}), arrayMap(raw_json_value -> if(startsWith(raw_json_value, '"'), '', raw_json_value), [JSONExtractRaw(e.properties, {p_3:String})])[1]), e.event) AS item
      FROM events AS e
LEFT JOIN (
  SELECT distinct_id, person_id
  FROM person_distinct_ids FINAL
  WHERE team_id = {team_id:Int64} AND is_deleted = 0) AS pdi ON pdi.distinct_id = e.distinct_id
PREWHERE e.team_id = {team_id:Int64} AND e.timestamp >= {p_0:DateTime64(6, 'UTC')} AND e.timestamp <= {p_1:DateTime64(6, 'UTC')}
WHERE (e.event = '$pageview')) )
      GROUP BY actor
    )
    ARRAY JOIN sessions AS session
  )
)
WHERE point_index > 0)
ARRAY JOIN arrayEnumerate(path) AS position
WHERE position > 1
GROUP BY source, target

ORDER BY value DESC, source, target
LIMIT {p_7:UInt64};
-- params:
-- {
--   "p_0": "2026-01-08 00:00:00.000000",
--   "p_1": "2026-01-15 23:59:59.999999",
--   "p_2": "$current_url",
--   "p_3": "$screen_name",
--   "p_4": 4,
--   "p_5": "/pricing",
--   "p_6": 1800000000,
--   "p_7": 50,
--   "team_id": 1,
--   "timezone": "UTC"
-- }
