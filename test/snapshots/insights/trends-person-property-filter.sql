-- trends-person-property-filter: the warehouse queries of this legacy filter, at 2026-01-15T12:00:00.000Z
-- {"events":[{"id":"$pageview","type":"events","order":0}],"date_from":"2026-01-08","date_to":"2026-01-15","interval":"week","properties":[{"key":"plan","value":"pro","operator":"exact","type":"person"}]}
-- Rewrite: npm run build && UPDATE_SNAPSHOTS=1 node --test dist/test/unit/insight-sql-snapshots.test.js

-- query 1 of 1 (query)
SELECT toStartOfWeek(toDateTime(e.timestamp, {timezone:String}), 0) AS bucket, count() AS value
FROM events AS e
LEFT JOIN (
  SELECT distinct_id, person_id
  FROM person_distinct_ids FINAL
  WHERE team_id = {team_id:Int64} AND is_deleted = 0) AS pdi ON pdi.distinct_id = e.distinct_id
LEFT JOIN (
  SELECT id, person_id, properties, is_identified, created_at
  FROM persons FINAL
  WHERE team_id = {team_id:Int64} AND is_deleted = 0) AS person ON person.id = if(pdi.distinct_id = '', e.person_id, pdi.person_id)
PREWHERE e.team_id = {team_id:Int64} AND e.timestamp >= {p_0:DateTime64(6, 'UTC')} AND e.timestamp <= {p_1:DateTime64(6, 'UTC')} AND e.event = {p_2:String}
WHERE ((has({p_3:Array(String)}, if(notEmpty(JSONExtractString(person.properties, {p_4:String})), JSONExtractString(person.properties, {p_4:String}), arrayMap(raw_json_value -> if(startsWith(raw_json_value, '"'), '', raw_json_value), [JSONExtractRaw(person.properties, {p_4:String})])[1]))))
GROUP BY bucket;
-- params:
-- {
--   "p_0": "2026-01-04 00:00:00.000000",
--   "p_1": "2026-01-15 23:59:59.999999",
--   "p_2": "$pageview",
--   "p_3": [
--     "pro"
--   ],
--   "p_4": "plan",
--   "team_id": 1,
--   "timezone": "UTC"
-- }
