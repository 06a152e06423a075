-- trends-breakdown-event-property: the warehouse queries of this legacy filter, at 2026-01-15T12:00:00.000Z
-- {"events":[{"id":"$pageview","type":"events","order":0}],"date_from":"2026-01-08","date_to":"2026-01-15","breakdown":"$browser","breakdown_type":"event"}
-- Rewrite: npm run build && UPDATE_SNAPSHOTS=1 node --test dist/test/unit/insight-sql-snapshots.test.js

-- query 1 of 1 (query)
SELECT bucket, if(chosen, if(property_value = '', {p_7:String}, property_value), {p_8:String}) AS breakdown_value,
  sum(state) AS value, max(if(chosen, rank, 0)) AS chosen_rank, max(more) AS has_more
FROM (
  SELECT *, value_events > 0 AND rank > {p_5:UInt64} AND rank <= {p_6:UInt64} AS chosen,
    max(value_events > 0 AND rank > {p_6:UInt64}) OVER () AS more
  FROM (
    SELECT *, dense_rank() OVER (ORDER BY value_events DESC, property_value DESC) AS rank
    FROM (
      SELECT *, sum(ranked_events) OVER (PARTITION BY property_value) AS value_events
      FROM (
        SELECT toDate(toDateTime(e.timestamp, {timezone:String})) AS bucket, if(notEmpty(JSONExtractString(e.properties, {p_3:String})), JSONExtractString(e.properties, {p_3:String}), arrayMap(raw_json_value -> if(startsWith(raw_json_value, '"'), '', raw_json_value), [JSONExtractRaw(e.properties, {p_3:String})])[1]) AS property_value, countIf(e.timestamp >= {p_4:DateTime64(6, 'UTC')}) AS ranked_events, count() AS state
        FROM events AS e
LEFT JOIN (
  SELECT distinct_id, person_id
  FROM person_distinct_ids FINAL
  WHERE team_id = {team_id:Int64} AND is_deleted = 0) AS pdi ON pdi.distinct_id = e.distinct_id
PREWHERE e.team_id = {team_id:Int64} AND e.timestamp >= {p_0:DateTime64(6, 'UTC')} AND e.timestamp <= {p_1:DateTime64(6, 'UTC')} AND e.event = {p_2:String}
        GROUP BY bucket, property_value))))
GROUP BY bucket, breakdown_value;
-- params:
-- {
--   "p_0": "2026-01-08 00:00:00.000000",
--   "p_1": "2026-01-15 23:59:59.999999",
--   "p_2": "$pageview",
--   "p_3": "$browser",
--   "p_4": "2026-01-08 00:00:00.000000",
--   "p_5": 0,
--   "p_6": 25,
--   "p_7": "$$_posthog_breakdown_null_$$",
--   "p_8": "$$_posthog_breakdown_other_$$",
--   "team_id": 1,
--   "timezone": "UTC"
-- }
