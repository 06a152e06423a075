-- cluster-migrate-fresh: every statement of the migrations on an empty warehouse
-- Rewrite: npm run build && UPDATE_SNAPSHOTS=1 node --test dist/test/unit/warehouse-ddl-snapshots.test.js

-- query 1 of 27 (command)
CREATE TABLE IF NOT EXISTS tally_migrations ON CLUSTER `tally_cluster` (version UInt32, name String, applied_at DateTime64(3, 'UTC'))
     ENGINE = ReplicatedMergeTree('/clickhouse/tables/noshard/analytics/tally_migrations', '{replica}') ORDER BY version;
-- params:
-- {}

-- query 2 of 27 (query)
SELECT version FROM tally_migrations;
-- params:
-- {}

-- query 3 of 27 (command)
CREATE TABLE IF NOT EXISTS events_local ON CLUSTER `tally_cluster` (
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
      ) ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/analytics/events_local', '{replica}')
      PARTITION BY toYYYYMM(timestamp)
      ORDER BY (team_id, toDate(timestamp), event, cityHash64(distinct_id), cityHash64(uuid))
      SETTINGS fsync_after_insert = 1, fsync_part_directory = 1;
-- params:
-- {}

-- query 4 of 27 (command)
CREATE TABLE IF NOT EXISTS events ON CLUSTER `tally_cluster` AS events_local
      ENGINE = Distributed(`tally_cluster`, `analytics`, events_local, cityHash64(distinct_id));
-- params:
-- {}

-- query 5 of 27 (insert)
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

-- query 6 of 27 (command)
CREATE TABLE IF NOT EXISTS persons ON CLUSTER `tally_cluster` (
        id UUID,
        team_id Int64,
        person_id Int64,
        properties String,
        is_identified UInt8,
        created_at DateTime64(6, 'UTC'),
        version UInt64,
        is_deleted UInt8
      ) ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/noshard/analytics/persons', '{replica}', version)
      ORDER BY (team_id, person_id)
      SETTINGS fsync_after_insert = 1, fsync_part_directory = 1;
-- params:
-- {}

-- query 7 of 27 (command)
CREATE TABLE IF NOT EXISTS person_distinct_ids ON CLUSTER `tally_cluster` (
        team_id Int64,
        distinct_id String,
        person_id UUID,
        version UInt64,
        is_deleted UInt8
      ) ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/noshard/analytics/person_distinct_ids', '{replica}', version)
      ORDER BY (team_id, distinct_id)
      SETTINGS fsync_after_insert = 1, fsync_part_directory = 1;
-- params:
-- {}

-- query 8 of 27 (command)
CREATE TABLE IF NOT EXISTS groups ON CLUSTER `tally_cluster` (
        team_id Int64,
        group_type_index UInt8,
        group_key String,
        group_properties String,
        created_at DateTime64(6, 'UTC'),
        version UInt64
      ) ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/noshard/analytics/groups', '{replica}', version)
      ORDER BY (team_id, group_type_index, group_key)
      SETTINGS fsync_after_insert = 1, fsync_part_directory = 1;
-- params:
-- {}

-- query 9 of 27 (insert)
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

-- query 10 of 27 (command)
CREATE TABLE IF NOT EXISTS static_cohort_members ON CLUSTER `tally_cluster` (
        team_id Int64,
        cohort_id Int64,
        person_id UUID,
        version UInt64,
        is_deleted UInt8
      ) ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/noshard/analytics/static_cohort_members', '{replica}', version)
      ORDER BY (team_id, cohort_id, person_id)
      SETTINGS fsync_after_insert = 1, fsync_part_directory = 1;
-- params:
-- {}

-- query 11 of 27 (insert)
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

-- query 12 of 27 (command)
CREATE TABLE IF NOT EXISTS event_uuids_local ON CLUSTER `tally_cluster` (team_id Int64, uuid UUID)
      ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/analytics/event_uuids_local', '{replica}')
      ORDER BY (team_id, uuid)
      SETTINGS fsync_after_insert = 1, fsync_part_directory = 1;
-- params:
-- {}

-- query 13 of 27 (command)
CREATE TABLE IF NOT EXISTS event_uuids ON CLUSTER `tally_cluster` AS event_uuids_local
      ENGINE = Distributed(`tally_cluster`, `analytics`, event_uuids_local, cityHash64(uuid));
-- params:
-- {}

-- query 14 of 27 (command)
CREATE MATERIALIZED VIEW IF NOT EXISTS event_uuids_from_events ON CLUSTER `tally_cluster` TO event_uuids_local AS SELECT team_id, uuid FROM events_local;
-- params:
-- {}

-- query 15 of 27 (command)
INSERT INTO event_uuids SELECT team_id, uuid FROM events;
-- params:
-- {}

-- query 16 of 27 (insert)
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

-- query 17 of 27 (query)
SELECT sorting_key FROM system.tables WHERE database = currentDatabase() AND name = 'persons';
-- params:
-- {}

-- query 18 of 27 (command)
DROP TABLE IF EXISTS persons_reordering ON CLUSTER `tally_cluster` SYNC;
-- params:
-- {}

-- query 19 of 27 (insert)
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

-- query 20 of 27 (query)
SELECT name FROM system.columns WHERE database = currentDatabase() AND table = 'persons' AND startsWith(name, 'pmat_');
-- params:
-- {}

-- query 21 of 27 (insert)
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

-- query 22 of 27 (command)
ALTER TABLE events_local ON CLUSTER `tally_cluster` MODIFY SETTING lightweight_mutation_projection_mode = 'rebuild';
-- params:
-- {}

-- query 23 of 27 (command)
ALTER TABLE events_local ON CLUSTER `tally_cluster` ADD PROJECTION IF NOT EXISTS hourly_event_counts (
          SELECT team_id, event, toStartOfHour(timestamp), count() GROUP BY team_id, event, toStartOfHour(timestamp)
        );
-- params:
-- {}

-- query 24 of 27 (command)
ALTER TABLE events_local ON CLUSTER `tally_cluster` MATERIALIZE PROJECTION hourly_event_counts SETTINGS mutations_sync = 2;
-- params:
-- {}

-- query 25 of 27 (insert)
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

-- query 26 of 27 (command)
ALTER TABLE events_local ON CLUSTER `tally_cluster` MODIFY SETTING vertical_merge_algorithm_min_rows_to_activate = 1, vertical_merge_algorithm_min_columns_to_activate = 1;
-- params:
-- {}

-- query 27 of 27 (insert)
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
