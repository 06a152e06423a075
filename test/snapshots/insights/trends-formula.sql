-- trends-formula: the warehouse queries of this legacy filter, at 2026-01-15T12:00:00.000Z
-- {"events":[{"id":"$pageview","type":"events","order":0},{"id":"sign up","type":"events","order":1}],"date_from":"2026-01-08","date_to":"2026-01-15","formula":"A + B"}
-- Rewrite: npm run build && UPDATE_SNAPSHOTS=1 node --test dist/test/unit/insight-sql-snapshots.test.js

-- query 1 of 1 (query)
SELECT toDate(toDateTime(toStartOfHour(e.timestamp), {timezone:String})) AS bucket, e.event AS event, count() AS value
FROM events AS e
WHERE e.team_id = {team_id:Int64} AND toStartOfHour(e.timestamp) >= toStartOfHour({p_0:DateTime64(6, 'UTC')}) AND toStartOfHour(e.timestamp) <= toStartOfHour({p_1:DateTime64(6, 'UTC')}) AND e.event IN {p_2:Array(String)}
GROUP BY bucket, event
SETTINGS max_threads = 1, optimize_use_implicit_projections = 0;
-- params:
-- {
--   "p_0": "2026-01-08 00:00:00.000000",
--   "p_1": "2026-01-15 23:59:59.999999",
--   "p_2": [
--     "$pageview",
--     "sign up"
--   ],
--   "team_id": 1,
--   "timezone": "UTC"
-- }
