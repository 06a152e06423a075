import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';

const SERVER = { CLICKHOUSE_URL: 'http://clickhouse:8123' };

describe('config: TALLY_CLICKHOUSE_CLUSTER', () => {
  test('names the cluster of the ClickHouse server; unset, the warehouse is one node', () => {
    const config = loadConfig({ ...SERVER, CLICKHOUSE_DATABASE: 'analytics', TALLY_CLICKHOUSE_CLUSTER: ' tally_cluster ' });
    assert.equal(config.clickhouseCluster, 'tally_cluster');
    assert.equal(config.clickhouseDatabase, 'analytics');
    assert.equal(loadConfig(SERVER).clickhouseCluster, null);
    assert.equal(loadConfig({ ...SERVER, TALLY_CLICKHOUSE_CLUSTER: '' }).clickhouseCluster, null);
    assert.equal(loadConfig({ ...SERVER, TALLY_CLICKHOUSE_CLUSTER: '_Cluster_2' }).clickhouseCluster, '_Cluster_2');
  });

  test('is refused without CLICKHOUSE_URL: the embedded warehouse is a single node', () => {
    assert.throws(
      () => loadConfig({ TALLY_CLICKHOUSE_CLUSTER: 'tally_cluster' }),
      (error: unknown) => error instanceof ConfigError && /TALLY_CLICKHOUSE_CLUSTER needs CLICKHOUSE_URL/.test(error.message),
    );
  });

  test('is refused unless it is a plain identifier, since DDL holds it as it is', () => {
    for (const name of ['1cluster', 'tally-cluster', 'tally cluster', 'tally`cluster', "tally'cluster", 'tally$cluster', 'c; DROP TABLE events', 'clustér']) {
      assert.throws(
        () => loadConfig({ ...SERVER, TALLY_CLICKHOUSE_CLUSTER: name }),
        (error: unknown) => error instanceof ConfigError && error.message.startsWith('TALLY_CLICKHOUSE_CLUSTER must be a cluster name'),
        name,
      );
    }
  });

  test("with a cluster, the database must be a plain identifier too: the cluster's table definitions name it", () => {
    assert.throws(
      () => loadConfig({ ...SERVER, CLICKHOUSE_DATABASE: 'tally-analytics', TALLY_CLICKHOUSE_CLUSTER: 'tally_cluster' }),
      (error: unknown) => error instanceof ConfigError && error.message.startsWith('CLICKHOUSE_DATABASE must be a name'),
    );
    assert.equal(
      loadConfig({ ...SERVER, CLICKHOUSE_DATABASE: 'tally-analytics' }).clickhouseDatabase,
      'tally-analytics',
      'one server takes any database name, as before',
    );
  });
});
