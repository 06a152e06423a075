-- trends-breakdown-sum: the warehouse queries of this legacy filter, at 2026-01-15T12:00:00.000Z
-- {"events":[{"id":"paid","type":"events","order":2,"math":"sum","math_property":"amount"}],"date_from":"2026-01-08","date_to":"2026-01-15","breakdown":"$browser","breakdown_type":"event"}
-- Rewrite: npm run build && UPDATE_SNAPSHOTS=1 node --test dist/test/unit/insight-sql-snapshots.test.js

-- query 1 of 2 (query)
SELECT if(notEmpty(JSONExtractString(e.properties, {p_3:String})), JSONExtractString(e.properties, {p_3:String}), arrayMap(raw_json_value -> if(startsWith(raw_json_value, '"'), '', raw_json_value), [JSONExtractRaw(e.properties, {p_3:String})])[1]) AS value, sum(toFloat64OrNull(if(notEmpty(JSONExtractString(e.properties, {p_4:String})), JSONExtractString(e.properties, {p_4:String}), arrayMap(raw_json_value -> if(startsWith(raw_json_value, '"'), '', raw_json_value), [JSONExtractRaw(e.properties, {p_4:String})])[1]))) AS count
FROM events AS e
PREWHERE e.team_id = {team_id:Int64} AND e.timestamp >= {p_0:DateTime64(6, 'UTC')} AND e.timestamp <= {p_1:DateTime64(6, 'UTC')} AND e.event = {p_2:String}
GROUP BY value
ORDER BY count DESC, value DESC
LIMIT {p_5:UInt64} OFFSET {p_6:UInt64};
-- params:
-- {
--   "p_0": "2026-01-08 00:00:00.000000",
--   "p_1": "2026-01-15 23:59:59.999999",
--   "p_2": "paid",
--   "p_3": "$browser",
--   "p_4": "amount",
--   "p_5": 26,
--   "p_6": 0,
--   "team_id": 1,
--   "timezone": "UTC"
-- }

-- query 2 of 2 (query)
SELECT toDate(toDateTime(e.timestamp, {timezone:String})) AS bucket, transform(ifNull(nullIf(if(notEmpty(JSONExtractString(e.properties, {p_6:String})), JSONExtractString(e.properties, {p_6:String}), arrayMap(raw_json_value -> if(startsWith(raw_json_value, '"'), '', raw_json_value), [JSONExtractRaw(e.properties, {p_6:String})])[1]), ''), {p_4:String}), {p_3:Array(String)}, {p_3:Array(String)}, {p_5:String}) AS breakdown_value, sum(toFloat64OrNull(if(notEmpty(JSONExtractString(e.properties, {p_7:String})), JSONExtractString(e.properties, {p_7:String}), arrayMap(raw_json_value -> if(startsWith(raw_json_value, '"'), '', raw_json_value), [JSONExtractRaw(e.properties, {p_7:String})])[1]))) AS value
FROM events AS e
PREWHERE e.team_id = {team_id:Int64} AND e.timestamp >= {p_0:DateTime64(6, 'UTC')} AND e.timestamp <= {p_1:DateTime64(6, 'UTC')} AND e.event = {p_2:String}
GROUP BY bucket, breakdown_value;
-- params:
-- {
--   "p_0": "2026-01-08 00:00:00.000000",
--   "p_1": "2026-01-15 23:59:59.999999",
--   "p_2": "paid",
--   "p_3": [
--     "Chrome",
--     "Safari"
--   ],
--   "p_4": "$$_posthog_breakdown_null_$$",
--   "p_5": "$$_posthog_breakdown_other_$$",
--   "p_6": "$browser",
--   "p_7": "amount",
--   "team_id": 1,
--   "timezone": "UTC"
-- }
