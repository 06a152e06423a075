-- single-node-migrate-fresh: every statement of the migrations on an empty warehouse
-- Rewrite: npm run build && UPDATE_SNAPSHOTS=1 node --test dist/test/unit/warehouse-ddl-snapshots.test.js

-- query 1 of 29 (command)
CREATE TABLE IF NOT EXISTS tally_migrations (version UInt32, name String, applied_at DateTime64(3, 'UTC'))
     ENGINE = MergeTree ORDER BY version;
-- params:
-- {}

-- query 2 of 29 (query)
SELECT version FROM tally_migrations;
-- params:
-- {}

-- query 3 of 29 (command)
CREATE TABLE IF NOT EXISTS events (
        uuid UUID,
        team_id Int64,
        event String,
        distinct_id String,
        properties String,
        timestamp DateTime64(6, 'UTC'),
        created_at DateTime64(6, 'UTC'),
        elements_chain String,
        person_id UUID,
        person_properties String,
        person_created_at DateTime64(3, 'UTC'),
        person_mode LowCardinality(String),
        `$group_0` String,
        `$group_1` String,
        `$group_2` String,
        `$group_3` String,
        `$group_4` String,
        `$session_id` String,
        INDEX uuid_bloom uuid TYPE bloom_filter GRANULARITY 1
      ) ENGINE = MergeTree
      PARTITION BY toYYYYMM(timestamp)
      ORDER BY (team_id, toDate(timestamp), event, cityHash64(distinct_id), cityHash64(uuid))
      SETTINGS fsync_after_insert = 1, fsync_part_directory = 1;
-- params:
-- {}

-- query 4 of 29 (insert)
INSERT INTO tally_migrations FORMAT JSONEachRow;
-- params:
-- {
--   "rows": [
--     {
--       "applied_at": "2026-01-15 12:00:00.000000",
--       "name": "events",
--       "version": 1
--     }
--   ]
-- }

-- query 5 of 29 (command)
CREATE TABLE IF NOT EXISTS persons (
        id UUID,
        team_id Int64,
        person_id Int64,
        properties String,
        is_identified UInt8,
        created_at DateTime64(6, 'UTC'),
        version UInt64,
        is_deleted UInt8
      ) ENGINE = ReplacingMergeTree(version)
      ORDER BY (team_id, id)
      SETTINGS fsync_after_insert = 1, fsync_part_directory = 1;
-- params:
-- {}

-- query 6 of 29 (command)
CREATE TABLE IF NOT EXISTS person_distinct_ids (
        team_id Int64,
        distinct_id String,
        person_id UUID,
        version UInt64,
        is_deleted UInt8
      ) ENGINE = ReplacingMergeTree(version)
      ORDER BY (team_id, distinct_id)
      SETTINGS fsync_after_insert = 1, fsync_part_directory = 1;
-- params:
-- {}

-- query 7 of 29 (command)
CREATE TABLE IF NOT EXISTS groups (
        team_id Int64,
        group_type_index UInt8,
        group_key String,
        group_properties String,
        created_at DateTime64(6, 'UTC'),
        version UInt64
      ) ENGINE = ReplacingMergeTree(version)
      ORDER BY (team_id, group_type_index, group_key)
      SETTINGS fsync_after_insert = 1, fsync_part_directory = 1;
-- params:
-- {}

-- query 8 of 29 (insert)
INSERT INTO tally_migrations FORMAT JSONEachRow;
-- params:
-- {
--   "rows": [
--     {
--       "applied_at": "2026-01-15 12:00:00.000000",
--       "name": "replicas",
--       "version": 2
--     }
--   ]
-- }

-- query 9 of 29 (command)
CREATE TABLE IF NOT EXISTS static_cohort_members (
        team_id Int64,
        cohort_id Int64,
        person_id UUID,
        version UInt64,
        is_deleted UInt8
      ) ENGINE = ReplacingMergeTree(version)
      ORDER BY (team_id, cohort_id, person_id)
      SETTINGS fsync_after_insert = 1, fsync_part_directory = 1;
-- params:
-- {}

-- query 10 of 29 (insert)
INSERT INTO tally_migrations FORMAT JSONEachRow;
-- params:
-- {
--   "rows": [
--     {
--       "applied_at": "2026-01-15 12:00:00.000000",
--       "name": "static_cohort_members",
--       "version": 3
--     }
--   ]
-- }

-- query 11 of 29 (command)
CREATE TABLE IF NOT EXISTS event_uuids (team_id Int64, uuid UUID)
      ENGINE = ReplacingMergeTree
      ORDER BY (team_id, uuid)
      SETTINGS fsync_after_insert = 1, fsync_part_directory = 1;
-- params:
-- {}

-- query 12 of 29 (command)
CREATE MATERIALIZED VIEW IF NOT EXISTS event_uuids_from_events TO event_uuids AS SELECT team_id, uuid FROM events;
-- params:
-- {}

-- query 13 of 29 (command)
INSERT INTO event_uuids SELECT team_id, uuid FROM events;
-- params:
-- {}

-- query 14 of 29 (insert)
INSERT INTO tally_migrations FORMAT JSONEachRow;
-- params:
-- {
--   "rows": [
--     {
--       "applied_at": "2026-01-15 12:00:00.000000",
--       "name": "event_uuids",
--       "version": 4
--     }
--   ]
-- }

-- query 15 of 29 (query)
SELECT sorting_key FROM system.tables WHERE database = currentDatabase() AND name = 'persons';
-- params:
-- {}

-- query 16 of 29 (command)
DROP TABLE IF EXISTS persons_reordering;
-- params:
-- {}

-- query 17 of 29 (command)
CREATE TABLE persons_reordering AS persons
      ENGINE = ReplacingMergeTree(version)
      ORDER BY (team_id, person_id)
      SETTINGS fsync_after_insert = 1, fsync_part_directory = 1;
-- params:
-- {}

-- query 18 of 29 (command)
INSERT INTO persons_reordering SELECT * FROM persons;
-- params:
-- {}

-- query 19 of 29 (command)
EXCHANGE TABLES persons AND persons_reordering;
-- params:
-- {}

-- query 20 of 29 (command)
DROP TABLE IF EXISTS persons_reordering;
-- params:
-- {}

-- query 21 of 29 (insert)
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

-- query 22 of 29 (query)
SELECT name FROM system.columns WHERE database = currentDatabase() AND table = 'persons' AND startsWith(name, 'pmat_');
-- params:
-- {}

-- query 23 of 29 (insert)
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

-- query 24 of 29 (command)
ALTER TABLE events MODIFY SETTING lightweight_mutation_projection_mode = 'rebuild';
-- params:
-- {}

-- query 25 of 29 (command)
ALTER TABLE events ADD PROJECTION IF NOT EXISTS hourly_event_counts (
          SELECT team_id, event, toStartOfHour(timestamp), count() GROUP BY team_id, event, toStartOfHour(timestamp)
        );
-- params:
-- {}

-- query 26 of 29 (command)
ALTER TABLE events MATERIALIZE PROJECTION hourly_event_counts SETTINGS mutations_sync = 2;
-- params:
-- {}

-- query 27 of 29 (insert)
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

-- query 28 of 29 (command)
ALTER TABLE events MODIFY SETTING vertical_merge_algorithm_min_rows_to_activate = 1, vertical_merge_algorithm_min_columns_to_activate = 1;
-- params:
-- {}

-- query 29 of 29 (insert)
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
