import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, test } from 'node:test';
import { ChdbWarehouse } from '../../src/storage/warehouse/chdb-warehouse.js';
import { migrateWarehouse } from '../../src/storage/warehouse/migrations.js';
import { tempDataDir } from '../support/tally.js';

const directory = tempDataDir('tally-warehouse-');
after(() => fs.rmSync(directory, { recursive: true, force: true }));

function personRow(personId: number, version: number, plan: string, deleted = 0) {
  return {
    id: `0190a3f2-0000-7000-8000-${String(personId).padStart(12, '0')}`,
    team_id: 1,
    person_id: personId,
    properties: JSON.stringify({ plan }),
    is_identified: 0,
    created_at: '2024-01-01 00:00:00.000000',
    version,
    is_deleted: deleted,
  };
}

async function currentPersons(warehouse: ChdbWarehouse) {
  return warehouse.query<{ person_id: number; properties: string }>('SELECT person_id, properties FROM persons FINAL WHERE is_deleted = 0 ORDER BY person_id');
}

test('the persons replica is re-keyed by person number with every current person kept, and again after a crash', async () => {
  const warehouse = new ChdbWarehouse(directory);
  try {
    await migrateWarehouse(warehouse, 4);
    await warehouse.insert('persons', [personRow(3, 1, 'free'), personRow(1, 2, 'free'), personRow(2, 3, 'pro')]);
    await warehouse.insert('persons', [personRow(3, 4, 'team'), personRow(2, 5, 'pro', 1)]);
    await migrateWarehouse(warehouse);

    const [table] = await warehouse.query<{ sorting_key: string }>(`SELECT sorting_key FROM system.tables WHERE name = 'persons'`);
    assert.equal(table?.sorting_key, 'team_id, person_id');
    const expected = [
      { person_id: 1, properties: '{"plan":"free"}' },
      { person_id: 3, properties: '{"plan":"team"}' },
    ];
    assert.deepEqual(await currentPersons(warehouse), expected);

    // A crash after the swap but before the bookkeeping row: the step runs again on the new layout.
    await warehouse.command('CREATE TABLE persons_reordering AS persons');
    await warehouse.command('DELETE FROM tally_migrations WHERE version = 5');
    await migrateWarehouse(warehouse);
    assert.deepEqual(await currentPersons(warehouse), expected);
    const leftovers = await warehouse.query(`SELECT name FROM system.tables WHERE name = 'persons_reordering'`);
    assert.deepEqual(leftovers, []);
  } finally {
    await warehouse.close();
  }
});

test('events parts are merged column by column, on a warehouse migrated from before the setting too', async () => {
  const dataDir = tempDataDir('tally-warehouse-');
  const warehouse = new ChdbWarehouse(dataDir);
  try {
    await migrateWarehouse(warehouse, 7);
    const engineOf = async () =>
      (await warehouse.query<{ engine_full: string }>(`SELECT engine_full FROM system.tables WHERE name = 'events'`))[0]!.engine_full;
    assert.doesNotMatch(await engineOf(), /vertical_merge/);
    await migrateWarehouse(warehouse);
    const engine = await engineOf();
    assert.match(engine, /vertical_merge_algorithm_min_rows_to_activate = 1\b/);
    assert.match(engine, /vertical_merge_algorithm_min_columns_to_activate = 1\b/);
  } finally {
    await warehouse.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
