-- cluster-migrate-from-4: the persons re-key and the person-column drop, over tables of migration 4 holding one person column
-- Rewrite: npm run build && UPDATE_SNAPSHOTS=1 node --test dist/test/unit/warehouse-ddl-snapshots.test.js

-- query 1 of 18 (command)
CREATE TABLE IF NOT EXISTS tally_migrations ON CLUSTER `tally_cluster` (version UInt32, name String, applied_at DateTime64(3, 'UTC'))
     ENGINE = ReplicatedMergeTree('/clickhouse/tables/noshard/analytics/tally_migrations', '{replica}') ORDER BY version;
-- params:
-- {}

-- query 2 of 18 (query)
SELECT version FROM tally_migrations;
-- params:
-- {}

-- query 3 of 18 (query)
SELECT sorting_key FROM system.tables WHERE database = currentDatabase() AND name = 'persons';
-- params:
-- {}

-- query 4 of 18 (command)
DROP TABLE IF EXISTS persons_reordering ON CLUSTER `tally_cluster` SYNC;
-- params:
-- {}

-- query 5 of 18 (command)
CREATE TABLE persons_reordering ON CLUSTER `tally_cluster` AS persons
      ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/noshard/analytics/persons_reordering', '{replica}', version)
      ORDER BY (team_id, person_id)
      SETTINGS fsync_after_insert = 1, fsync_part_directory = 1;
-- params:
-- {}

-- query 6 of 18 (command)
INSERT INTO persons_reordering SELECT * FROM persons;
-- params:
-- {}

-- query 7 of 18 (command)
EXCHANGE TABLES persons AND persons_reordering ON CLUSTER `tally_cluster`;
-- params:
-- {}

-- query 8 of 18 (command)
DROP TABLE IF EXISTS persons_reordering ON CLUSTER `tally_cluster` SYNC;
-- params:
-- {}

-- query 9 of 18 (insert)
INSERT INTO tally_migrations FORMAT JSONEachRow;
-- params:
-- {
--   "rows": [
--     {
--       "applied_at": "2026-01-15 12:00:00.000000",
--       "name": "persons_by_number",
--       "version": 5
--     }
--   ]
-- }

-- query 10 of 18 (query)
SELECT name FROM system.columns WHERE database = currentDatabase() AND table = 'persons' AND startsWith(name, 'pmat_');
-- params:
-- {}

-- query 11 of 18 (command)
ALTER TABLE persons ON CLUSTER `tally_cluster` DROP COLUMN IF EXISTS `pmat_plan_0123456789abcdef`;
-- params:
-- {}

-- query 12 of 18 (insert)
INSERT INTO tally_migrations FORMAT JSONEachRow;
-- params:
-- {
--   "rows": [
--     {
--       "applied_at": "2026-01-15 12:00:00.000000",
--       "name": "decoded_person_property_columns",
--       "version": 6
--     }
--   ]
-- }

-- query 13 of 18 (command)
ALTER TABLE events_local ON CLUSTER `tally_cluster` MODIFY SETTING lightweight_mutation_projection_mode = 'rebuild';
-- params:
-- {}

-- query 14 of 18 (command)
ALTER TABLE events_local ON CLUSTER `tally_cluster` ADD PROJECTION IF NOT EXISTS hourly_event_counts (
          SELECT team_id, event, toStartOfHour(timestamp), count() GROUP BY team_id, event, toStartOfHour(timestamp)
        );
-- params:
-- {}

-- query 15 of 18 (command)
ALTER TABLE events_local ON CLUSTER `tally_cluster` MATERIALIZE PROJECTION hourly_event_counts SETTINGS mutations_sync = 2;
-- params:
-- {}

-- query 16 of 18 (insert)
INSERT INTO tally_migrations FORMAT JSONEachRow;
-- params:
-- {
--   "rows": [
--     {
--       "applied_at": "2026-01-15 12:00:00.000000",
--       "name": "hourly_event_counts",
--       "version": 7
--     }
--   ]
-- }

-- query 17 of 18 (command)
ALTER TABLE events_local ON CLUSTER `tally_cluster` MODIFY SETTING vertical_merge_algorithm_min_rows_to_activate = 1, vertical_merge_algorithm_min_columns_to_activate = 1;
-- params:
-- {}

-- query 18 of 18 (insert)
INSERT INTO tally_migrations FORMAT JSONEachRow;
-- params:
-- {
--   "rows": [
--     {
--       "applied_at": "2026-01-15 12:00:00.000000",
--       "name": "vertical_event_merges",
--       "version": 8
--     }
--   ]
-- }
