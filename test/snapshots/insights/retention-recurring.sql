-- retention-recurring: the warehouse queries of this legacy filter, at 2026-01-15T12:00:00.000Z
-- {"target_entity":{"id":"$pageview","type":"events","order":0},"retention_type":"retention_recurring","period":"Day","total_intervals":7}
-- Rewrite: npm run build && UPDATE_SNAPSHOTS=1 node --test dist/test/unit/insight-sql-snapshots.test.js

-- query 1 of 1 (query)
SELECT sumForEach(arrayMap(j -> actors * toUInt64(bitTest(cohorts, intDiv(j, {p_6:UInt64})) AND (j % {p_6:UInt64} = 0 OR bitTest(returns, least(intDiv(j, {p_6:UInt64}) + j % {p_6:UInt64}, 63)))), range({p_6:UInt64} * {p_6:UInt64}))) AS counts
  FROM (
    SELECT cohorts, returns, count() AS actors
    FROM (
      SELECT actor, groupBitOrIf(bitShiftLeft(toUInt64(1), toUInt8(period_index)), is_target AND in_range AND period_index < 64) AS cohorts, groupBitOrIf(bitShiftLeft(toUInt64(1), toUInt8(period_index)), is_returning AND in_range AND period_index < 64) AS returns
      FROM (SELECT if(pdi.distinct_id = '', e.person_id, pdi.person_id) AS actor, e.timestamp AS at, toInt64(dateDiff('day', toDate(toDateTime({p_4:DateTime64(6, 'UTC')}, {timezone:String})), toDate(toDateTime(e.timestamp, {timezone:String})))) AS period_index, (e.event = {p_2:String}) AS is_target,
        (e.event = {p_3:String}) AS is_returning, e.timestamp >= {p_4:DateTime64(6, 'UTC')} AS in_range
      FROM events AS e
LEFT JOIN (
  SELECT distinct_id, person_id
  FROM person_distinct_ids FINAL
  WHERE team_id = {team_id:Int64} AND is_deleted = 0) AS pdi ON pdi.distinct_id = e.distinct_id
PREWHERE e.team_id = {team_id:Int64} AND e.timestamp >= {p_0:DateTime64(6, 'UTC')} AND e.timestamp <= {p_1:DateTime64(6, 'UTC')} AND e.event IN {p_5:Array(String)}
WHERE ((e.event = {p_2:String}) OR (e.event = {p_3:String})))
      GROUP BY actor
    )
    WHERE cohorts != 0
    GROUP BY cohorts, returns
  );
-- params:
-- {
--   "p_0": "2026-01-09 00:00:00.000000",
--   "p_1": "2026-01-16 00:00:00.000000",
--   "p_2": "$pageview",
--   "p_3": "$pageview",
--   "p_4": "2026-01-09 00:00:00.000000",
--   "p_5": [
--     "$pageview"
--   ],
--   "p_6": 7,
--   "team_id": 1,
--   "timezone": "UTC"
-- }
