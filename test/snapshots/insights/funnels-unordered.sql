-- funnels-unordered: the warehouse queries of this legacy filter, at 2026-01-15T12:00:00.000Z
-- {"events":[{"id":"$pageview","type":"events","order":0},{"id":"sign up","type":"events","order":1},{"id":"paid","type":"events","order":2}],"date_from":"2026-01-08","date_to":"2026-01-15","funnel_order_type":"unordered"}
-- Rewrite: npm run build && UPDATE_SNAPSHOTS=1 node --test dist/test/unit/insight-sql-snapshots.test.js

-- query 1 of 1 (query)
SELECT bucket, sumForEach(arrayMap(k -> toUInt64(steps >= k), range(1, 4))) AS counts,
  avgForEach(avg_times) AS averages, quantileExactInclusiveForEach(0.5)(median_times) AS medians
FROM (SELECT actor, bucket, funnel.3 AS steps, funnel.5.1 AS entry_at, funnel.5.2 AS final_at, funnel.5.3 AS step_times,
  arrayMap(i -> arrayReduce('avgOrNull', arrayMap(c -> c[i], funnel.4)), range(1, 3)) AS avg_times,
  arrayMap(i -> arrayReduce('quantileExactInclusiveOrNull(0.5)', arrayMap(c -> c[i], funnel.4)), range(1, 3)) AS median_times
FROM (
    SELECT actor, bucket, arrayFold((acc, x) -> if(x.2 > 0, (
      arrayMap(s -> if(bitTest(x.2, s), x.1, acc.1[s + 1]), range(3)),
      arrayMap(j -> if(bitTest(x.3, j), x.1, acc.2[j + 1]), range(0)),
      if((NOT arrayExists(j -> acc.2[j + 1] >= 0 AND acc.2[j + 1] < if(arrayAll(v -> v >= 0, arrayMap(s -> acc.1[s + 1], arrayFilter(s -> s != x.4 - 1, range(3)))), arrayMax(arrayMap(s -> acc.1[s + 1], arrayFilter(s -> s != x.4 - 1, range(3)))), x.1 + {p_5:Int64}), range(0))), greatest(acc.3, toUInt64(length(arraySort(arrayPushFront(arrayFilter(v -> v > x.1 AND v - x.1 <= {p_5:Int64}, arrayMap(s -> acc.1[s + 1], arrayFilter(s -> s != x.4 - 1, range(3)))), x.1))))), acc.3),
      if((NOT arrayExists(j -> acc.2[j + 1] >= 0 AND acc.2[j + 1] < if(arrayAll(v -> v >= 0, arrayMap(s -> acc.1[s + 1], arrayFilter(s -> s != x.4 - 1, range(3)))), arrayMax(arrayMap(s -> acc.1[s + 1], arrayFilter(s -> s != x.4 - 1, range(3)))), x.1 + {p_5:Int64}), range(0))), if(toUInt64(length(arraySort(arrayPushFront(arrayFilter(v -> v > x.1 AND v - x.1 <= {p_5:Int64}, arrayMap(s -> acc.1[s + 1], arrayFilter(s -> s != x.4 - 1, range(3)))), x.1)))) > acc.3, [arrayMap(i -> if(i < toUInt64(length(arraySort(arrayPushFront(arrayFilter(v -> v > x.1 AND v - x.1 <= {p_5:Int64}, arrayMap(s -> acc.1[s + 1], arrayFilter(s -> s != x.4 - 1, range(3)))), x.1)))), intDiv((arraySort(arrayPushFront(arrayFilter(v -> v > x.1 AND v - x.1 <= {p_5:Int64}, arrayMap(s -> acc.1[s + 1], arrayFilter(s -> s != x.4 - 1, range(3)))), x.1)))[i + 1], 1000000) - intDiv((arraySort(arrayPushFront(arrayFilter(v -> v > x.1 AND v - x.1 <= {p_5:Int64}, arrayMap(s -> acc.1[s + 1], arrayFilter(s -> s != x.4 - 1, range(3)))), x.1)))[i], 1000000), NULL), range(1, 3))], if(toUInt64(length(arraySort(arrayPushFront(arrayFilter(v -> v > x.1 AND v - x.1 <= {p_5:Int64}, arrayMap(s -> acc.1[s + 1], arrayFilter(s -> s != x.4 - 1, range(3)))), x.1)))) = acc.3, arrayPushBack(acc.4, arrayMap(i -> if(i < toUInt64(length(arraySort(arrayPushFront(arrayFilter(v -> v > x.1 AND v - x.1 <= {p_5:Int64}, arrayMap(s -> acc.1[s + 1], arrayFilter(s -> s != x.4 - 1, range(3)))), x.1)))), intDiv((arraySort(arrayPushFront(arrayFilter(v -> v > x.1 AND v - x.1 <= {p_5:Int64}, arrayMap(s -> acc.1[s + 1], arrayFilter(s -> s != x.4 - 1, range(3)))), x.1)))[i + 1], 1000000) - intDiv((arraySort(arrayPushFront(arrayFilter(v -> v > x.1 AND v - x.1 <= {p_5:Int64}, arrayMap(s -> acc.1[s + 1], arrayFilter(s -> s != x.4 - 1, range(3)))), x.1)))[i], 1000000), NULL), range(1, 3))), acc.4)), acc.4),
      if((NOT arrayExists(j -> acc.2[j + 1] >= 0 AND acc.2[j + 1] < if(arrayAll(v -> v >= 0, arrayMap(s -> acc.1[s + 1], arrayFilter(s -> s != x.4 - 1, range(3)))), arrayMax(arrayMap(s -> acc.1[s + 1], arrayFilter(s -> s != x.4 - 1, range(3)))), x.1 + {p_5:Int64}), range(0))) AND toUInt64(length(arraySort(arrayPushFront(arrayFilter(v -> v > x.1 AND v - x.1 <= {p_5:Int64}, arrayMap(s -> acc.1[s + 1], arrayFilter(s -> s != x.4 - 1, range(3)))), x.1)))) >= acc.3, (x.1, if(toUInt64(length(arraySort(arrayPushFront(arrayFilter(v -> v > x.1 AND v - x.1 <= {p_5:Int64}, arrayMap(s -> acc.1[s + 1], arrayFilter(s -> s != x.4 - 1, range(3)))), x.1)))) = 3, arrayMax(arraySort(arrayPushFront(arrayFilter(v -> v > x.1 AND v - x.1 <= {p_5:Int64}, arrayMap(s -> acc.1[s + 1], arrayFilter(s -> s != x.4 - 1, range(3)))), x.1))), toInt64(-1)), arraySort(arrayPushFront(arrayFilter(v -> v > x.1 AND v - x.1 <= {p_5:Int64}, arrayMap(s -> acc.1[s + 1], arrayFilter(s -> s != x.4 - 1, range(3)))), x.1))), acc.5),
      acc.6), (arrayMap(s -> if(bitTest(x.2, s), x.1, acc.1[s + 1]), range(3)), arrayMap(j -> if(bitTest(x.3, j), x.1, acc.2[j + 1]), range(0)), acc.3, acc.4, acc.5, acc.6)), arrayReverse(timeline), (arrayWithConstant(3, toInt64(-1)), arrayWithConstant(0, toInt64(-1)), toUInt64(0), CAST([], 'Array(Array(Nullable(Int64)))'),
      (toInt64(-1), toInt64(-1), CAST([], 'Array(Int64)')), CAST([], 'Array(Tuple(String, UInt64))'))) AS funnel FROM (SELECT actor, bucket, timeline
    FROM (
      SELECT actor, [CAST([], 'Array(String)')] AS buckets, arraySort(x -> (x.1, x.4), groupArray((at, step_mask, exclusion_mask, if(step_mask = 0, 0, 1 + bitCount(bitAnd(step_mask, bitNot(step_mask) + 1) - 1))))) AS timeline
      FROM (
        SELECT if(pdi.distinct_id = '', e.person_id, pdi.person_id) AS actor, toUnixTimestamp64Micro(e.timestamp) AS at, if((e.event = {p_2:String}), toUInt64(1), toUInt64(0)) + if((e.event = {p_3:String}), toUInt64(2), toUInt64(0)) + if((e.event = {p_4:String}), toUInt64(4), toUInt64(0)) AS step_mask,
          toUInt64(0) AS exclusion_mask
        FROM events AS e
LEFT JOIN (
  SELECT distinct_id, person_id
  FROM person_distinct_ids FINAL
  WHERE team_id = {team_id:Int64} AND is_deleted = 0) AS pdi ON pdi.distinct_id = e.distinct_id
PREWHERE e.team_id = {team_id:Int64} AND e.timestamp >= {p_0:DateTime64(6, 'UTC')} AND e.timestamp <= {p_1:DateTime64(6, 'UTC')} AND e.event IN {p_8:Array(String)}
WHERE ((e.event = {p_2:String}) OR (e.event = {p_3:String}) OR (e.event = {p_4:String}))
      )
      GROUP BY actor

    )
    ARRAY JOIN buckets AS bucket
    )
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
--     "$pageview",
--     "sign up",
--     "paid"
--   ],
--   "team_id": 1,
--   "timezone": "UTC"
-- }
