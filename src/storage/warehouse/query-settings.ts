/**
 * Settings every warehouse query runs with. Queries join the events to the current replicas
 * (`events AS e LEFT JOIN <distinct ids> AS pdi`), written so that the replica, the small side,
 * becomes the hash table. ClickHouse 25's join reordering swaps the sides when its row estimate
 * for the filtered events is low, and then holds every scanned event with its properties in
 * memory: 1.2 GB for a month of pageviews at 10M events, and slower. The written order stands.
 */
export const WAREHOUSE_QUERY_SETTINGS: Readonly<Record<string, string>> = {
  query_plan_join_swap_table: '0',
};

/**
 * Settings every warehouse insert runs with. The events table is partitioned by month, and
 * ClickHouse refuses an insert whose rows fall in more than 100 partitions: a backfill of ten
 * years in one batch would be refused on every retry, and no read could pass it. Each partition
 * gets a part of its own instead, merged later.
 */
export const WAREHOUSE_INSERT_SETTINGS: Readonly<Record<string, string>> = {
  max_partitions_per_insert_block: '0',
};
