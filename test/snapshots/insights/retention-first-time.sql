-- retention-first-time: the warehouse queries of this legacy filter, at 2026-01-15T12:00:00.000Z
-- {"target_entity":{"id":"sign up","type":"events","order":1},"returning_entity":{"id":"$pageview","type":"events","order":0},"retention_type":"retention_first_time","period":"Week","total_intervals":5}
-- Rewrite: npm run build && UPDATE_SNAPSHOTS=1 node --test dist/test/unit/insight-sql-snapshots.test.js

-- query 1 of 1 (query)
SELECT sumForEach(arrayMap(j -> actors * toUInt64(bitTest(cohorts, intDiv(j, {p_5:UInt64})) AND (j % {p_5:UInt64} = 0 OR bitTest(returns, least(intDiv(j, {p_5:UInt64}) + j % {p_5:UInt64}, 63)))), range({p_5:UInt64} * {p_5:UInt64}))) AS counts
  FROM (
    SELECT cohorts, returns, count() AS actors
    FROM (
      SELECT actor, if(minIf(at, is_target) >= {p_3:DateTime64(6, 'UTC')}, bitShiftLeft(toUInt64(1), toUInt8(toInt64(intDiv(dateDiff('day', toStartOfWeek(toDateTime({p_3:DateTime64(6, 'UTC')}, {timezone:String}), 0), toStartOfWeek(toDateTime(minIf(at, is_target), {timezone:String}), 0)), 7)))), toUInt64(0)) AS cohorts, groupBitOrIf(bitShiftLeft(toUInt64(1), toUInt8(period_index)), is_returning AND in_range AND period_index < 64) AS returns
      FROM (SELECT if(pdi.distinct_id = '', e.person_id, pdi.person_id) AS actor, e.timestamp AS at, toInt64(intDiv(dateDiff('day', toStartOfWeek(toDateTime({p_3:DateTime64(6, 'UTC')}, {timezone:String}), 0), toStartOfWeek(toDateTime(e.timestamp, {timezone:String}), 0)), 7)) AS period_index, (e.event = {p_1:String}) AS is_target,
        (e.event = {p_2:String}) AS is_returning, e.timestamp >= {p_3:DateTime64(6, 'UTC')} AS in_range
      FROM events AS e
LEFT JOIN (
  SELECT distinct_id, person_id
  FROM person_distinct_ids FINAL
  WHERE team_id = {team_id:Int64} AND is_deleted = 0) AS pdi ON pdi.distinct_id = e.distinct_id
PREWHERE e.team_id = {team_id:Int64} AND e.timestamp <= {p_0:DateTime64(6, 'UTC')} AND e.event IN {p_4:Array(String)}
WHERE ((e.event = {p_1:String}) OR (e.event = {p_2:String}))
  AND (e.timestamp >= {p_3:DateTime64(6, 'UTC')} OR (e.event = {p_1:String})))
      GROUP BY actor
    )
    WHERE cohorts != 0
    GROUP BY cohorts, returns
  );
-- params:
-- {
--   "p_0": "2026-01-22 00:00:00.000000",
--   "p_1": "sign up",
--   "p_2": "$pageview",
--   "p_3": "2025-12-14 00:00:00.000000",
--   "p_4": [
--     "sign up",
--     "$pageview"
--   ],
--   "p_5": 5,
--   "team_id": 1,
--   "timezone": "UTC"
-- }
