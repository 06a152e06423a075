-- retention-breakdown: the warehouse queries of this legacy filter, at 2026-01-15T12:00:00.000Z
-- {"target_entity":{"id":"$pageview","type":"events","order":0},"period":"Day","total_intervals":7,"breakdowns":[{"type":"person","property":"os"}],"breakdown_type":"person"}
-- Rewrite: npm run build && UPDATE_SNAPSHOTS=1 node --test dist/test/unit/insight-sql-snapshots.test.js

-- query 1 of 1 (query)
SELECT entry.1 AS row_key, entry.2 AS interval, count() AS actors
FROM (SELECT actor,
    arrayDistinct(arrayFlatten(arrayMap(c -> arrayMap(k -> (c.1, k),
      arrayConcat([toInt64(0)], arrayMap(r -> r - c.2, arrayFilter(r -> r > c.2, returns)))), cohorts))) AS entries
  FROM (
    SELECT actor, groupUniqArrayIf((row_key, period_index), is_target AND in_range) AS cohorts, groupUniqArrayIf(period_index, is_returning AND in_range) AS returns
    FROM (SELECT if(pdi.distinct_id = '', e.person_id, pdi.person_id) AS actor, e.timestamp AS at, toInt64(dateDiff('day', toDate(toDateTime({p_4:DateTime64(6, 'UTC')}, {timezone:String})), toDate(toDateTime(e.timestamp, {timezone:String})))) AS period_index, (e.event = {p_2:String}) AS is_target,
        (e.event = {p_3:String}) AS is_returning, e.timestamp >= {p_4:DateTime64(6, 'UTC')} AS in_range, [if(notEmpty(JSONExtractString(person.properties, {p_5:String})), JSONExtractString(person.properties, {p_5:String}), arrayMap(raw_json_value -> if(startsWith(raw_json_value, '"'), '', raw_json_value), [JSONExtractRaw(person.properties, {p_5:String})])[1])] AS row_key
      FROM events AS e
LEFT JOIN (
  SELECT distinct_id, person_id
  FROM person_distinct_ids FINAL
  WHERE team_id = {team_id:Int64} AND is_deleted = 0) AS pdi ON pdi.distinct_id = e.distinct_id
LEFT JOIN (
  SELECT id, person_id, properties, is_identified, created_at
  FROM persons FINAL
  WHERE team_id = {team_id:Int64} AND is_deleted = 0) AS person ON person.id = if(pdi.distinct_id = '', e.person_id, pdi.person_id)
PREWHERE e.team_id = {team_id:Int64} AND e.timestamp >= {p_0:DateTime64(6, 'UTC')} AND e.timestamp <= {p_1:DateTime64(6, 'UTC')} AND e.event IN {p_6:Array(String)}
WHERE ((e.event = {p_2:String}) OR (e.event = {p_3:String})))
    GROUP BY actor
  )
  WHERE notEmpty(cohorts))
ARRAY JOIN entries AS entry
WHERE entry.2 < {p_7:Int64}
GROUP BY row_key, interval;
-- params:
-- {
--   "p_0": "2026-01-09 00:00:00.000000",
--   "p_1": "2026-01-16 00:00:00.000000",
--   "p_2": "$pageview",
--   "p_3": "$pageview",
--   "p_4": "2026-01-09 00:00:00.000000",
--   "p_5": "os",
--   "p_6": [
--     "$pageview"
--   ],
--   "p_7": 7,
--   "team_id": 1,
--   "timezone": "UTC"
-- }
