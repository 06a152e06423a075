import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { ChdbWarehouse } from '../../src/storage/warehouse/chdb-warehouse.js';
import { tempDataDir } from '../support/tally.js';

// A query that writes about 100,000 rows of output before it fails.
const FAILS_MIDWAY = 'SELECT number, throwIf(number = 100000) AS failed FROM numbers(1000000) SETTINGS max_block_size = 1000';

test('a query failing after it wrote rows leaves nothing for the next query, whatever its format', async (t) => {
  const directory = tempDataDir('tally-chdb-failed-');
  const warehouse = new ChdbWarehouse(directory);
  t.after(async () => {
    await warehouse.close();
    fs.rmSync(directory, { recursive: true, force: true });
  });
  await assert.rejects(warehouse.query(FAILS_MIDWAY), /throwIf|non-zero/);
  assert.deepEqual(await warehouse.query('SELECT 1 AS x'), [{ x: 1 }]);
  await assert.rejects(warehouse.queryColumns(FAILS_MIDWAY), /throwIf|non-zero/);
  assert.deepEqual(await warehouse.queryColumns('SELECT 2 AS x, {y:String} AS y', { y: 'z' }), { types: ['UInt8', 'String'], rows: [[2, 'z']] });
  const [failed, next] = await Promise.allSettled([warehouse.query(FAILS_MIDWAY), warehouse.query('SELECT 3 AS x')]);
  assert.equal(failed.status, 'rejected');
  assert.deepEqual(next, { status: 'fulfilled', value: [{ x: 3 }] });
});
