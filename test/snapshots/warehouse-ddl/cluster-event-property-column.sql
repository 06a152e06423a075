-- cluster-event-property-column: the first read of the event property $browser adds its column
-- Rewrite: npm run build && UPDATE_SNAPSHOTS=1 node --test dist/test/unit/warehouse-ddl-snapshots.test.js

-- query 1 of 4 (query)
SELECT name FROM system.columns
         WHERE database = currentDatabase() AND table = {table:String} AND startsWith(name, {prefix:String});
-- params:
-- {
--   "prefix": "mat_",
--   "table": "events"
-- }

-- query 2 of 4 (command)
ALTER TABLE events_local ON CLUSTER `tally_cluster` ADD COLUMN IF NOT EXISTS mat_browser_5a2351c0f6c9915f String MATERIALIZED if(notEmpty(JSONExtractString(properties, {p_0:String})), JSONExtractString(properties, {p_0:String}), arrayMap(raw_json_value -> if(startsWith(raw_json_value, '"'), '', raw_json_value), [JSONExtractRaw(properties, {p_0:String})])[1]);
-- params:
-- {
--   "p_0": "$browser"
-- }

-- query 3 of 4 (command)
ALTER TABLE events ON CLUSTER `tally_cluster` ADD COLUMN IF NOT EXISTS mat_browser_5a2351c0f6c9915f String MATERIALIZED if(notEmpty(JSONExtractString(properties, {p_0:String})), JSONExtractString(properties, {p_0:String}), arrayMap(raw_json_value -> if(startsWith(raw_json_value, '"'), '', raw_json_value), [JSONExtractRaw(properties, {p_0:String})])[1]);
-- params:
-- {
--   "p_0": "$browser"
-- }

-- query 4 of 4 (command)
ALTER TABLE events_local ON CLUSTER `tally_cluster` MATERIALIZE COLUMN mat_browser_5a2351c0f6c9915f;
-- params:
-- {}
