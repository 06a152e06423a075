-- trends-total: the warehouse queries of this legacy filter, at 2026-01-15T12:00:00.000Z
-- {"events":[{"id":"$pageview","type":"events","order":0,"math":"total"}],"date_from":"2026-01-08","date_to":"2026-01-15"}
-- Rewrite: npm run build && UPDATE_SNAPSHOTS=1 node --test dist/test/unit/insight-sql-snapshots.test.js

-- query 1 of 1 (query)
SELECT toDate(toDateTime(e.timestamp, {timezone:String})) AS bucket, count() AS value
FROM events AS e
PREWHERE e.team_id = {team_id:Int64} AND e.timestamp >= {p_0:DateTime64(6, 'UTC')} AND e.timestamp <= {p_1:DateTime64(6, 'UTC')} AND e.event = {p_2:String}
GROUP BY bucket;
-- params:
-- {
--   "p_0": "2026-01-08 00:00:00.000000",
--   "p_1": "2026-01-15 23:59:59.999999",
--   "p_2": "$pageview",
--   "team_id": 1,
--   "timezone": "UTC"
-- }
