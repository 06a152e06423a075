-- lifecycle: the warehouse queries of this legacy filter, at 2026-01-15T12:00:00.000Z
-- {"events":[{"id":"$pageview","type":"events","order":0}],"date_from":"-7d","interval":"day"}
-- Rewrite: npm run build && UPDATE_SNAPSHOTS=1 node --test dist/test/unit/insight-sql-snapshots.test.js

-- query 1 of 1 (query)
SELECT period, status, count() AS actors FROM (SELECT actor, person_id, created_at, toString(period_status.1) AS period, period_status.2 AS status
FROM (
  SELECT activity.actor AS actor, person.person_id AS person_id, person.created_at AS created_at, activity.periods AS periods,
    toDate(toDateTime(person.created_at, {timezone:String})) AS created_period
  FROM (
    SELECT if(pdi.distinct_id = '', e.person_id, pdi.person_id) AS actor, groupUniqArray(toDate(toDateTime(e.timestamp, {timezone:String}))) AS periods
    FROM events AS e
LEFT JOIN (
  SELECT distinct_id, person_id
  FROM person_distinct_ids FINAL
  WHERE team_id = {team_id:Int64} AND is_deleted = 0) AS pdi ON pdi.distinct_id = e.distinct_id
PREWHERE e.team_id = {team_id:Int64} AND e.timestamp >= {p_0:DateTime64(6, 'UTC')} AND e.timestamp <= {p_1:DateTime64(6, 'UTC')} AND e.event = {p_2:String}
    GROUP BY actor
  ) AS activity
  INNER JOIN (SELECT id, person_id, created_at FROM (
  SELECT id, person_id, properties, is_identified, created_at
  FROM persons FINAL
  WHERE team_id = {team_id:Int64} AND is_deleted = 0)) AS person ON person.id = activity.actor
)
ARRAY JOIN arrayConcat(
  arrayMap(p -> (p, multiIf(p = created_period, 'new', has(periods, p - INTERVAL 1 DAY), 'returning', 'resurrecting')), periods),
  arrayMap(p -> (p + INTERVAL 1 DAY, 'dormant'), arrayFilter(p -> NOT has(periods, p + INTERVAL 1 DAY), periods))
) AS period_status
WHERE period IN {p_3:Array(String)}) GROUP BY period, status;
-- params:
-- {
--   "p_0": "2026-01-07 00:00:00.000000",
--   "p_1": "2026-01-15 23:59:59.999999",
--   "p_2": "$pageview",
--   "p_3": [
--     "2026-01-08",
--     "2026-01-09",
--     "2026-01-10",
--     "2026-01-11",
--     "2026-01-12",
--     "2026-01-13",
--     "2026-01-14",
--     "2026-01-15"
--   ],
--   "team_id": 1,
--   "timezone": "UTC"
-- }
