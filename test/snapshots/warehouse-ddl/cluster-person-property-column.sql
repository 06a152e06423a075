-- cluster-person-property-column: the first filter on the person property plan adds its column
-- Rewrite: npm run build && UPDATE_SNAPSHOTS=1 node --test dist/test/unit/warehouse-ddl-snapshots.test.js

-- query 1 of 3 (query)
SELECT name FROM system.columns
         WHERE database = currentDatabase() AND table = {table:String} AND startsWith(name, {prefix:String});
-- params:
-- {
--   "prefix": "pmat_",
--   "table": "persons"
-- }

-- query 2 of 3 (command)
ALTER TABLE persons ON CLUSTER `tally_cluster` ADD COLUMN IF NOT EXISTS pmat_plan_64879f7d6b960a01 String MATERIALIZED if(notEmpty(JSONExtractString(properties, {p_0:String})), JSONExtractString(properties, {p_0:String}), arrayMap(raw_json_value -> if(startsWith(raw_json_value, '"'), '', raw_json_value), [JSONExtractRaw(properties, {p_0:String})])[1]);
-- params:
-- {
--   "p_0": "plan"
-- }

-- query 3 of 3 (command)
ALTER TABLE persons ON CLUSTER `tally_cluster` MATERIALIZE COLUMN pmat_plan_64879f7d6b960a01;
-- params:
-- {}
