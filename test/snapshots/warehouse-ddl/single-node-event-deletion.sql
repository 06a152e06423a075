-- single-node-event-deletion: the deletion job deletes a deleted person's events, then counts what is left
-- Rewrite: npm run build && UPDATE_SNAPSHOTS=1 node --test dist/test/unit/warehouse-ddl-snapshots.test.js

-- query 1 of 2 (command)
DELETE FROM events WHERE (team_id = {team_0:Int64} AND distinct_id IN {ids_0:Array(String)} AND timestamp <= {until_0:DateTime64(6, 'UTC')}) SETTINGS lightweight_deletes_sync = 2;
-- params:
-- {
--   "ids_0": [
--     "ada",
--     "ada-anon"
--   ],
--   "team_0": 1,
--   "until_0": "2026-01-15 12:00:00.000000"
-- }

-- query 2 of 2 (query)
SELECT countIf((team_id = {team_0:Int64} AND distinct_id IN {ids_0:Array(String)} AND timestamp <= {until_0:DateTime64(6, 'UTC')})) AS remaining_0 FROM events WHERE (team_id = {team_0:Int64} AND distinct_id IN {ids_0:Array(String)} AND timestamp <= {until_0:DateTime64(6, 'UTC')});
-- params:
-- {
--   "ids_0": [
--     "ada",
--     "ada-anon"
--   ],
--   "team_0": 1,
--   "until_0": "2026-01-15 12:00:00.000000"
-- }
