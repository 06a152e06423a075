import { quotedIdentifier } from './warehouse-sql.js';

/** The MergeTree engines of Tally's tables, by their single-node names. */
export type MergeTreeEngine = 'MergeTree' | 'ReplacingMergeTree';

/**
 * The tables spread over a cluster's shards, each with the expression that picks a row's shard.
 * Every other table has a full copy on every node.
 */
const SHARDING_KEYS: ReadonlyMap<string, string> = new Map([
  // Events spread evenly over the shards, and each distinct id's events stay on one of them.
  ['events', 'cityHash64(distinct_id)'],
  // Each shard's view fills its own part from the events it stores. Rows inserted through the
  // Distributed table (the event writer's repair after a failed insert) carry no distinct id and
  // go by uuid, the same shard for the same uuid each time; a lookup asks every shard either way.
  ['event_uuids', 'cityHash64(uuid)'],
]);

/** Where a cluster's tables keep their replication state in Keeper. */
const KEEPER_ROOT = '/clickhouse/tables';

/**
 * Where the warehouse tables live, and the pieces of DDL that put them there. Readers name
 * `events`, `persons`, … in either layout.
 *
 * One node (chDB, or one ClickHouse server): each table is a MergeTree table of its own name,
 * and the DDL is what Tally has always run, so existing warehouses migrate as before.
 *
 * A ClickHouse cluster (TALLY_CLICKHOUSE_CLUSTER): every statement runs ON CLUSTER, and every
 * table is Replicated. Its Keeper path holds the database, so two Tally databases on one
 * cluster stay apart, and the macros each node's configuration defines: `{replica}`, and
 * `{shard}` for a sharded table.
 * - A sharded table (SHARDING_KEYS) stores its rows in `<name>_local` on each shard, under a
 *   path per shard; `<name>` is a Distributed table over them that inserts and reads go through.
 * - Every other table (the catalog replicas, the migrations' bookkeeping) has one path for the
 *   whole cluster, so each node holds all its rows: ClickHouse runs a query on the Distributed
 *   events on each shard, where it joins the shard's events to the node's full copy of persons.
 */
export class WarehouseLayout {
  static readonly SINGLE_NODE = new WarehouseLayout(null);

  /** The tables of `database` on the cluster `name`; both must be identifiers. */
  static cluster(name: string, database: string): WarehouseLayout {
    return new WarehouseLayout({ name, database });
  }

  /** ` ON CLUSTER `name`` to follow a table's name in DDL on a cluster; empty on one node. */
  readonly onCluster: string;

  private constructor(private readonly cluster: { name: string; database: string } | null) {
    // Both names are checked before any DDL holds them: the database stands unquoted in Keeper paths.
    this.onCluster = cluster === null ? '' : ` ON CLUSTER ${quotedIdentifier(cluster.name)}`;
    if (cluster !== null) quotedIdentifier(cluster.database);
  }

  get isCluster(): boolean {
    return this.cluster !== null;
  }

  /**
   * Settings of every insert, INSERT … SELECT included. A Distributed table otherwise answers an
   * insert once it has queued the rows on the node that received them, before any shard stores
   * them; in the foreground, the insert (an async insert's flush too, which the client waits
   * for) returns once every shard has written its rows.
   */
  get insertSettings(): Readonly<Record<string, string>> {
    return this.cluster === null ? {} : { distributed_foreground_insert: '1' };
  }

  /**
   * Settings of every query. Insight SQL joins the events to subqueries over the events (session
   * durations, funnel steps, cohorts): on a Distributed table ClickHouse refuses such a subquery
   * by default; GLOBAL runs it once and sends its result to every shard, which gives the answer a
   * single node gives, whichever shard holds a session's or a person's rows.
   */
  get querySettings(): Readonly<Record<string, string>> {
    return this.cluster === null ? {} : { distributed_product_mode: 'global' };
  }

  /**
   * The table that stores `table`'s rows on a node: `<table>_local` for a sharded table on a
   * cluster, else `table` itself. Statements on stored data (MATERIALIZE COLUMN, a lightweight
   * DELETE) name it: a Distributed table takes neither.
   */
  storedTable(table: string): string {
    return this.cluster !== null && SHARDING_KEYS.has(table) ? `${table}_local` : table;
  }

  /**
   * The tables that get a new column of `table`, in order: the stored table, then on a cluster
   * the Distributed one. The Distributed table declares a MATERIALIZED column too, so an insert
   * through it leaves the value to each shard and a read through it can select the column.
   */
  columnTables(table: string): string[] {
    const stored = this.storedTable(table);
    return stored === table ? [table] : [stored, table];
  }

  /**
   * The ENGINE of `table`'s stored table: `engine` (with its version column) on one node; on a
   * cluster, its Replicated form under the table's Keeper path.
   */
  engine(table: string, engine: MergeTreeEngine, version?: string): string {
    if (this.cluster === null) return version === undefined ? engine : `${engine}(${version})`;
    const stored = this.storedTable(table);
    const shard = stored === table ? 'noshard' : '{shard}';
    const path = `${KEEPER_ROOT}/${shard}/${this.cluster.database}/${stored}`;
    return `Replicated${engine}('${path}', '{replica}'${version === undefined ? '' : `, ${version}`})`;
  }

  /** On a cluster, the CREATE of the Distributed `table` over the shards' stored tables; nothing on one node. */
  distributedTable(table: string): string[] {
    const shardingKey = SHARDING_KEYS.get(table);
    if (this.cluster === null || shardingKey === undefined) return [];
    const { name, database } = this.cluster;
    const stored = this.storedTable(table);
    return [
      `CREATE TABLE IF NOT EXISTS ${table}${this.onCluster} AS ${stored}
      ENGINE = Distributed(${quotedIdentifier(name)}, ${quotedIdentifier(database)}, ${stored}, ${shardingKey})`,
    ];
  }

  /**
   * DROP TABLE IF EXISTS `table`. On a cluster the drop is SYNC: a Replicated table dropped
   * otherwise keeps its Keeper path for minutes, and a table created again under the same path
   * (a migration step run again after a crash) would be refused until then.
   */
  dropTable(table: string): string {
    return `DROP TABLE IF EXISTS ${table}${this.onCluster}${this.cluster === null ? '' : ' SYNC'}`;
  }
}
