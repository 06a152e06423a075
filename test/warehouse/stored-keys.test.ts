import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { ChdbWarehouse } from '../../src/storage/warehouse/chdb-warehouse.js';
import { tempDataDir } from '../support/tally.js';

test('chDB answers which of the asked keys a table holds, whole keys only', async () => {
  const directory = tempDataDir('tally-stored-keys-');
  const warehouse = new ChdbWarehouse(directory);
  try {
    await warehouse.command('CREATE TABLE keyed (team_id Int64, uuid UUID, name String) ENGINE = MergeTree ORDER BY (team_id, uuid)');
    const [a, b, c] = ['0190a3f2-0000-7000-8000-00000000000a', '0190a3f2-0000-7000-8000-00000000000b', '0190a3f2-0000-7000-8000-00000000000c'];
    await warehouse.command(`INSERT INTO keyed VALUES (1, '${a}', 'x'), (2, '${b}', 'ü \\'q\\'')`);
    const byUuid = [
      { name: 'team_id', type: 'Int64' },
      { name: 'uuid', type: 'UUID' },
    ];
    // (2, a) and (1, b) mix a stored team with a stored uuid of another row: not stored.
    const found = await warehouse.storedKeys('keyed', byUuid, [
      [1, a],
      [2, a],
      [1, b],
      [2, b],
      [1, c],
    ]);
    assert.deepEqual(found.sort(), [
      ['1', a],
      ['2', b],
    ]);
    const byName = [
      { name: 'team_id', type: 'Int64' },
      { name: 'name', type: 'String' },
    ];
    assert.deepEqual(
      await warehouse.storedKeys('keyed', byName, [
        [2, "ü 'q'"],
        [2, 'x'],
      ]),
      [['2', "ü 'q'"]],
    );
    assert.deepEqual(await warehouse.storedKeys('keyed', byUuid, []), []);
    await assert.rejects(warehouse.storedKeys('keyed', byUuid, [[1, 'not a uuid']]), /not a UUID/);
    assert.deepEqual(fs.readdirSync(`${directory}/tally-inserts`), [], 'no staged file is left behind');
  } finally {
    await warehouse.close();
    fs.rmSync(directory, { recursive: true, force: true });
  }
});
