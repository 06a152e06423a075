import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, test } from 'node:test';
import { rawPropertyValue } from '../../src/query/property-filters.js';
import { SqlParams } from '../../src/query/sql-params.js';
import { MaterializedProperties, PERSON_PROPERTY_COLUMNS, materializedColumnName } from '../../src/query/materialized-properties.js';
import { ChdbWarehouse } from '../../src/storage/warehouse/chdb-warehouse.js';
import { migrateWarehouse } from '../../src/storage/warehouse/migrations.js';
import { tempDataDir } from '../support/tally.js';

const directory = tempDataDir('tally-pmat-decoded-');
after(() => fs.rmSync(directory, { recursive: true, force: true }));

const KEY = 'plan "x"';
const VALUES: unknown[] = ['a"b', 'a\\b', 'café 😀', 'line1\nline2', '\u0001', 80, true, null, { a: 'b"' }];
const DECODED = ['a"b', 'a\\b', 'café 😀', 'line1\nline2', '\u0001', '80', 'true', 'null', '{"a":"b\\""}'];

/** How a person-property column was defined before it held decoded strings: JSON escapes kept. */
const ESCAPED_VALUE = `arrayMap(raw_json_value -> if(startsWith(raw_json_value, '"'), substring(raw_json_value, 2, length(raw_json_value) - 2), raw_json_value), [JSONExtractRaw(properties, {key:String})])[1]`;

function personRow(personId: number, value: unknown) {
  return {
    id: `0190a3f2-0000-7000-8000-${String(personId).padStart(12, '0')}`,
    team_id: 1,
    person_id: personId,
    properties: JSON.stringify({ [KEY]: value }),
    is_identified: 0,
    created_at: '2024-01-01 00:00:00.000000',
    version: personId,
    is_deleted: 0,
  };
}

async function personPropertyColumns(warehouse: ChdbWarehouse): Promise<string[]> {
  const rows = await warehouse.query<{ name: string }>(
    `SELECT name FROM system.columns WHERE database = currentDatabase() AND table = 'persons' AND startsWith(name, 'pmat_') ORDER BY name`,
  );
  return rows.map((row) => row.name);
}

test('columns of escaped person-property values are dropped, and come back holding the decoded text', async () => {
  const warehouse = new ChdbWarehouse(directory);
  try {
    await migrateWarehouse(warehouse, 5);
    await warehouse.insert(
      'persons',
      VALUES.map((value, index) => personRow(index + 1, value)),
    );
    const column = materializedColumnName('pmat_', KEY);
    await warehouse.command(`ALTER TABLE persons ADD COLUMN ${column} String MATERIALIZED ${ESCAPED_VALUE}`, { key: KEY });
    await warehouse.command(`ALTER TABLE persons MATERIALIZE COLUMN ${column}`);
    const escaped = await warehouse.query<{ stored: string }>(`SELECT ${column} AS stored FROM persons ORDER BY person_id LIMIT 2`);
    assert.deepEqual(escaped, [{ stored: 'a\\"b' }, { stored: 'a\\\\b' }]);

    await migrateWarehouse(warehouse);
    assert.deepEqual(await personPropertyColumns(warehouse), []);

    const failures: unknown[] = [];
    const columns = await new MaterializedProperties(warehouse, PERSON_PROPERTY_COLUMNS, (error) => failures.push(error)).columnsFor([KEY]);
    assert.equal(columns.get(KEY), column);
    await warehouse.insert(
      'persons',
      VALUES.map((value, index) => personRow(100 + index, value)),
    );
    const params = new SqlParams();
    const rows = await warehouse.query<{ stored: string; from_json: string }>(
      `SELECT ${column} AS stored, ${rawPropertyValue('properties', KEY, params)} AS from_json FROM persons ORDER BY person_id`,
      params.all,
    );
    assert.deepEqual(
      rows.map((row) => row.stored),
      [...DECODED, ...DECODED],
    );
    assert.deepEqual(
      rows.map((row) => row.from_json),
      [...DECODED, ...DECODED],
    );
    assert.deepEqual(failures, []);

    // The step again, as after a crash before its bookkeeping row: it drops what is there, which the API adds back.
    await warehouse.command('DELETE FROM tally_migrations WHERE version = 6');
    await migrateWarehouse(warehouse);
    assert.deepEqual(await personPropertyColumns(warehouse), []);
    const applied = await warehouse.query<{ version: number }>('SELECT version FROM tally_migrations WHERE version = 6');
    assert.equal(applied.length, 1);
  } finally {
    await warehouse.close();
  }
});
