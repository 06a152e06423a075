-- funnels-breakdown-step-attribution: the warehouse queries of this legacy filter, at 2026-01-15T12:00:00.000Z
-- {"events":[{"id":"$pageview","type":"events","order":0},{"id":"sign up","type":"events","order":1},{"id":"paid","type":"events","order":2}],"date_from":"2026-01-08","date_to":"2026-01-15","breakdown":"plan","breakdown_type":"person","breakdown_attribution_type":"step","breakdown_attribution_value":1}
-- Rewrite: npm run build && UPDATE_SNAPSHOTS=1 node --test dist/test/unit/insight-sql-snapshots.test.js

-- query 1 of 2 (query)
SELECT value FROM (
  SELECT [if(notEmpty(JSONExtractString(person.properties, {p_2:String})), JSONExtractString(person.properties, {p_2:String}), arrayMap(raw_json_value -> if(startsWith(raw_json_value, '"'), '', raw_json_value), [JSONExtractRaw(person.properties, {p_2:String})])[1])] AS value, count() AS events
  FROM events AS e
LEFT JOIN (
  SELECT distinct_id, person_id
  FROM person_distinct_ids FINAL
  WHERE team_id = {team_id:Int64} AND is_deleted = 0) AS pdi ON pdi.distinct_id = e.distinct_id
LEFT JOIN (
  SELECT id, person_id, properties, is_identified, created_at
  FROM persons FINAL
  WHERE team_id = {team_id:Int64} AND is_deleted = 0) AS person ON person.id = if(pdi.distinct_id = '', e.person_id, pdi.person_id)
PREWHERE e.team_id = {team_id:Int64} AND e.timestamp >= {p_0:DateTime64(6, 'UTC')} AND e.timestamp <= {p_1:DateTime64(6, 'UTC')} AND e.event IN {p_5:Array(String)}
WHERE ((e.event = {p_3:String}))
  GROUP BY value
  ORDER BY events DESC, value DESC
  LIMIT {p_4:UInt64}
);
-- params:
-- {
--   "p_0": "2026-01-08 00:00:00.000000",
--   "p_1": "2026-01-15 23:59:59.999999",
--   "p_2": "plan",
--   "p_3": "sign up",
--   "p_4": 25,
--   "p_5": [
--     "sign up"
--   ],
--   "team_id": 1,
--   "timezone": "UTC"
-- }

-- query 2 of 2 (query)
SELECT bucket, sumForEach(arrayMap(k -> toUInt64(steps >= k), range(1, 4))) AS counts,
  avgForEach(avg_times) AS averages, quantileExactInclusiveForEach(0.5)(median_times) AS medians
FROM (SELECT actor, bucket, most AS steps,
  if(best > 0, ts[at_0[best]], toInt64(-1)) AS entry_at,
  if(best > 0 AND at_2[best] > 0, ts[at_2[best]], toInt64(-1)) AS final_at,
  if(best > 0, arraySlice([ts[at_0[best]], ts[at_1[best]], ts[at_2[best]]], 1, most), CAST([], 'Array(Int64)')) AS step_times,
  [if(most > 1, arrayReduce('avgOrNull', arrayMap((k, a, b) -> if(k = most, intDiv(ts[b], 1000000) - intDiv(ts[a], 1000000), NULL), counted, at_0, at_1)), NULL), if(most > 2, arrayReduce('avgOrNull', arrayMap((k, a, b) -> if(k = most, intDiv(ts[b], 1000000) - intDiv(ts[a], 1000000), NULL), counted, at_1, at_2)), NULL)] AS avg_times,
  [if(most > 1, arrayReduce('quantileExactInclusiveOrNull(0.5)', arrayMap((k, a, b) -> if(k = most, intDiv(ts[b], 1000000) - intDiv(ts[a], 1000000), NULL), counted, at_0, at_1)), NULL), if(most > 2, arrayReduce('quantileExactInclusiveOrNull(0.5)', arrayMap((k, a, b) -> if(k = most, intDiv(ts[b], 1000000) - intDiv(ts[a], 1000000), NULL), counted, at_1, at_2)), NULL)] AS median_times
FROM (
  SELECT *, if(most > 0, arrayFirstIndex(k -> k = most, counted), 0) AS best
  FROM (SELECT actor, bucket, ts, at_0, at_1, at_2, counted, arrayMax(counted) AS most
    FROM (
      SELECT actor, bucket, ts, at_0, at_1, at_2, counted
      FROM (
        SELECT actor, bucket, timeline,
          arrayMap(x -> x.1, timeline) AS ts,
          arrayMap(x -> x.2, timeline) AS masks,
          arrayEnumerate(masks) AS positions,
          arrayReverseFill(p -> p > 0, arrayMap((m, i) -> if(bitTest(m, 1), i, 0), masks, positions)) AS next_1,
          arrayReverseFill(p -> p > 0, arrayMap((m, i) -> if(bitTest(m, 2), i, 0), masks, positions)) AS next_2,
          arrayFilter((i, m) -> bitTest(m, 0), positions, masks) AS at_0,
          arrayMap(p -> if(p > 0, next_1[p + 1], 0), at_0) AS at_1,
          arrayMap(p -> if(p > 0, next_2[p + 1], 0), at_1) AS at_2,
          arrayMap((p0, p1, p2) -> toUInt64(1 + (p1 > 0 AND ts[p1] - ts[p0] <= {p_5:Int64}) + (p2 > 0 AND ts[p2] - ts[p0] <= {p_5:Int64})), at_0, at_1, at_2) AS counted
        FROM (SELECT actor, bucket, timeline
    FROM (
      SELECT actor, arrayDistinct(arrayMap(v -> if(has({p_8:Array(Array(String))}, v), v, [{p_11:String}]), groupUniqArrayIf(prop, bitTest(step_mask, {p_10:UInt8})))) AS buckets, arraySort(x -> (x.1, x.4), groupArray((at, step_mask, exclusion_mask, if(step_mask = 0, 0, 1 + bitCount(bitAnd(step_mask, bitNot(step_mask) + 1) - 1))))) AS timeline
      FROM (
        SELECT if(pdi.distinct_id = '', e.person_id, pdi.person_id) AS actor, toUnixTimestamp64Micro(e.timestamp) AS at, if((e.event = {p_2:String}), toUInt64(1), toUInt64(0)) + if((e.event = {p_3:String}), toUInt64(2), toUInt64(0)) + if((e.event = {p_4:String}), toUInt64(4), toUInt64(0)) AS step_mask,
          toUInt64(0) AS exclusion_mask, [if(notEmpty(JSONExtractString(person.properties, {p_9:String})), JSONExtractString(person.properties, {p_9:String}), arrayMap(raw_json_value -> if(startsWith(raw_json_value, '"'), '', raw_json_value), [JSONExtractRaw(person.properties, {p_9:String})])[1])] AS prop
        FROM events AS e
LEFT JOIN (
  SELECT distinct_id, person_id
  FROM person_distinct_ids FINAL
  WHERE team_id = {team_id:Int64} AND is_deleted = 0) AS pdi ON pdi.distinct_id = e.distinct_id
LEFT JOIN (
  SELECT id, person_id, properties, is_identified, created_at
  FROM persons FINAL
  WHERE team_id = {team_id:Int64} AND is_deleted = 0) AS person ON person.id = if(pdi.distinct_id = '', e.person_id, pdi.person_id)
PREWHERE e.team_id = {team_id:Int64} AND e.timestamp >= {p_0:DateTime64(6, 'UTC')} AND e.timestamp <= {p_1:DateTime64(6, 'UTC')} AND e.event IN {p_12:Array(String)}
WHERE ((e.event = {p_2:String}) OR (e.event = {p_3:String}) OR (e.event = {p_4:String}))
      )
      GROUP BY actor
      HAVING bitTest(groupBitOr(step_mask), 0)
    )
    ARRAY JOIN buckets AS bucket
    )
      )
    ))
))
WHERE steps >= 1
GROUP BY bucket;
-- params:
-- {
--   "p_0": "2026-01-08 00:00:00.000000",
--   "p_1": "2026-01-15 23:59:59.999999",
--   "p_2": "$pageview",
--   "p_3": "sign up",
--   "p_4": "paid",
--   "p_5": 1209600000000,
--   "p_6": [],
--   "p_7": [],
--   "p_8": [
--     [
--       "pro"
--     ],
--     [
--       "free"
--     ]
--   ],
--   "p_9": "plan",
--   "p_10": 1,
--   "p_11": "Other",
--   "p_12": [
--     "$pageview",
--     "sign up",
--     "paid"
--   ],
--   "team_id": 1,
--   "timezone": "UTC"
-- }
