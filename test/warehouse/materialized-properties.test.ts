import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, test, type TestContext } from 'node:test';
import { rawPropertyValue } from '../../src/query/property-filters.js';
import { SqlParams } from '../../src/query/sql-params.js';
import {
  EVENT_PROPERTY_COLUMNS,
  MAX_MATERIALIZED_KEY_LENGTH,
  MaterializedProperties,
  PERSON_PROPERTY_COLUMNS,
  materializedColumnName,
} from '../../src/query/materialized-properties.js';
import { ChdbWarehouse } from '../../src/storage/warehouse/chdb-warehouse.js';
import { migrateWarehouse } from '../../src/storage/warehouse/migrations.js';
import type { Warehouse } from '../../src/storage/warehouse/warehouse.js';
import { personRowFixture } from '../support/person-rows.js';
import { tempDataDir } from '../support/tally.js';

const directory = tempDataDir('tally-pmat-');
after(() => fs.rmSync(directory, { recursive: true, force: true }));

const KEY = `plan "it's" ü`;
const VALUES: unknown[] = ['pro', 'with "quotes"', 'ü-ñ', 1.5, 10, -0.25, true, false, null, { nested: [1, 'a'] }, ['x', 2], ''];

/** Each row's column next to what the compiler reads from the JSON. */
async function columnAgainstJson(warehouse: ChdbWarehouse, column: string) {
  const params = new SqlParams();
  return warehouse.query<{ person_id: number; stored: string; from_json: string }>(
    `SELECT person_id, ${column} AS stored, ${rawPropertyValue('properties', KEY, params)} AS from_json FROM persons ORDER BY person_id`,
    params.all,
  );
}

/** A migrated warehouse in a directory of its own, removed after the test. */
async function ownWarehouse(t: TestContext, prefix: string): Promise<ChdbWarehouse> {
  const own = tempDataDir(prefix);
  t.after(() => fs.rmSync(own, { recursive: true, force: true }));
  const warehouse = new ChdbWarehouse(own);
  await migrateWarehouse(warehouse);
  return warehouse;
}

test('column names are identifiers, apart for keys that slug alike', () => {
  assert.match(materializedColumnName('pmat_', KEY), /^pmat_plan_it_s_[0-9a-f]{16}$/);
  assert.match(materializedColumnName('pmat_', 'ü'), /^pmat__[0-9a-f]{16}$/);
  assert.notEqual(materializedColumnName('pmat_', 'a-b'), materializedColumnName('pmat_', 'a_b'));
  assert.equal(materializedColumnName('pmat_', 'email'), materializedColumnName('pmat_', 'email'));
});

test("a materialized column holds exactly the compiler's raw value, for persons stored before and after it was added", async () => {
  const warehouse = new ChdbWarehouse(directory);
  try {
    await migrateWarehouse(warehouse);
    const before = VALUES.map((value, index) => personRowFixture(index + 1, { [KEY]: value, other: 1 }));
    await warehouse.insert('persons', [...before, personRowFixture(100, { other: 'no key' })]);

    const failures: unknown[] = [];
    const materialized = new MaterializedProperties(warehouse, PERSON_PROPERTY_COLUMNS, (error) => failures.push(error));
    const columns = await materialized.columnsFor([KEY, KEY]);
    const column = columns.get(KEY)!;
    assert.equal(column, materializedColumnName('pmat_', KEY));
    assert.deepEqual([...columns.keys()], [KEY]);

    const after = VALUES.map((value, index) => personRowFixture(200 + index, { [KEY]: value }));
    await warehouse.insert('persons', after);
    const rows = await columnAgainstJson(warehouse, column);
    assert.equal(rows.length, VALUES.length * 2 + 1);
    for (const row of rows) assert.equal(row.stored, row.from_json, `person ${row.person_id}`);
    assert.deepEqual(
      rows.slice(0, VALUES.length).map((row) => row.stored),
      ['pro', 'with "quotes"', 'ü-ñ', '1.5', '10', '-0.25', 'true', 'false', 'null', '{"nested":[1,"a"]}', '["x",2]', ''],
    );
    assert.equal(rows[VALUES.length]!.stored, '');

    // A second instance (a restart) finds the column instead of adding another.
    const restarted = new MaterializedProperties(warehouse, PERSON_PROPERTY_COLUMNS, (error) => failures.push(error));
    assert.equal((await restarted.columnsFor([KEY])).get(KEY), column);
    assert.deepEqual(failures, []);
  } finally {
    await warehouse.close();
  }
});

test('past the limit of columns, further keys are left to the JSON', async () => {
  const warehouse = new ChdbWarehouse(directory);
  try {
    await migrateWarehouse(warehouse);
    const materialized = new MaterializedProperties(warehouse, PERSON_PROPERTY_COLUMNS, (error) => assert.fail(String(error)));
    const keys = Array.from({ length: PERSON_PROPERTY_COLUMNS.limit + 3 }, (_, index) => `key_${index}`);
    const columns = await materialized.columnsFor(keys);
    const [stored] = await warehouse.query<{ columns: string }>(
      `SELECT count() AS columns FROM system.columns WHERE table = 'persons' AND startsWith(name, 'pmat_')`,
    );
    assert.equal(Number(stored!.columns), PERSON_PROPERTY_COLUMNS.limit);
    // The first test's column counts against the limit too.
    assert.equal(columns.size, PERSON_PROPERTY_COLUMNS.limit - 1);
  } finally {
    await warehouse.close();
  }
});

test('a warehouse that refuses the column leaves the filter on the JSON, and is asked once', async (t) => {
  // A directory of its own: the test before filled the other one's columns up to the limit.
  const warehouse = await ownWarehouse(t, 'tally-pmat-refused-');
  try {
    const commands: string[] = [];
    const refusing: Warehouse = {
      kind: warehouse.kind,
      layout: warehouse.layout,
      query: (sql, params) => warehouse.query(sql, params),
      queryColumns: (sql, params) => warehouse.queryColumns(sql, params),
      command: async (sql) => {
        commands.push(sql);
        throw new Error('Not enough privileges');
      },
      insert: (table, rows) => warehouse.insert(table, rows),
      insertJsonEachRow: (table, text) => warehouse.insertJsonEachRow(table, text),
      insertRowBinary: (table, columns, rows) => warehouse.insertRowBinary(table, columns, rows),
      storedKeys: (table, columns, keys) => warehouse.storedKeys(table, columns, keys),
      close: async () => {},
    };
    const failures: unknown[] = [];
    const materialized = new MaterializedProperties(refusing, PERSON_PROPERTY_COLUMNS, (error) => failures.push(error));
    assert.deepEqual(await materialized.columnsFor(['refused key']), new Map());
    assert.deepEqual(await materialized.columnsFor(['refused key']), new Map());
    assert.equal(commands.length, 1);
    assert.equal(failures.length, 1);
  } finally {
    await warehouse.close();
  }
});

test('an event column is answered once it exists, and asked for in the background by the read that lacked it', async (t) => {
  const warehouse = await ownWarehouse(t, 'tally-mat-events-');
  try {
    const materialized = new MaterializedProperties(warehouse, EVENT_PROPERTY_COLUMNS, (error) => assert.fail(String(error)));
    const longKey = 'k'.repeat(MAX_MATERIALIZED_KEY_LENGTH + 1);
    assert.equal(materialized.columnOf(KEY), undefined);
    assert.equal(materialized.columnOf(longKey), undefined);
    // The read above started the column; this waits for the same addition instead of starting another.
    assert.deepEqual([...(await materialized.columnsFor([KEY, longKey])).entries()], [[KEY, materializedColumnName('mat_', KEY)]]);
    assert.equal(materialized.columnOf(KEY), materializedColumnName('mat_', KEY));
    assert.equal(materialized.columnOf(longKey), undefined);
    const columns = await warehouse.query<{ name: string }>(`SELECT name FROM system.columns WHERE table = 'events' AND startsWith(name, 'mat_')`);
    assert.deepEqual(
      columns.map((row) => row.name),
      [materializedColumnName('mat_', KEY)],
    );
  } finally {
    await warehouse.close();
  }
});

test('columns of keys with control characters, quotes and a lone surrogate survive a restart and read what the JSON reads', async (t) => {
  const own = tempDataDir('tally-mat-restart-');
  t.after(() => fs.rmSync(own, { recursive: true, force: true }));
  const keys = ['nul\u0000key', 'line\nbreak\ttab', "quote ' back\\slash ` tick", 'lone \ud800 surrogate', '{p_0:String} {x:Identifier}'];
  // The stored JSON holds the keys ClickHouse's JSON reader takes (a NUL or a lone surrogate makes the whole text unreadable to it).
  const readable = (key: string) => !key.includes('\u0000') && !/[\ud800-\udfff]/.test(key);
  const properties = JSON.stringify(Object.fromEntries(keys.flatMap((key, index) => (readable(key) ? [[key, `value ${index}`]] : []))));
  let warehouse = new ChdbWarehouse(own);
  try {
    await migrateWarehouse(warehouse);
    await warehouse.insert('events', [{ uuid: '0190a3f2-0000-7000-8000-000000000001', team_id: 7, event: 'e', properties }]);
    const materialized = new MaterializedProperties(warehouse, EVENT_PROPERTY_COLUMNS, (error) => assert.fail(String(error)));
    const columns = await materialized.columnsFor(keys);
    assert.equal(columns.size, keys.length);
    await warehouse.close();
    warehouse = new ChdbWarehouse(own);
    await migrateWarehouse(warehouse);
    const afterRestart = await warehouse.query<{ name: string }>(
      `SELECT name FROM system.columns WHERE table = 'events' AND startsWith(name, 'mat_') ORDER BY name`,
    );
    assert.deepEqual(
      afterRestart.map((row) => row.name),
      [...columns.values()].sort(),
    );
    const restarted = new MaterializedProperties(warehouse, EVENT_PROPERTY_COLUMNS, (error) => assert.fail(String(error)));
    assert.deepEqual(await restarted.columnsFor(keys), columns, 'the restart finds every column');
    const params = new SqlParams();
    const read = keys.map((key, index) => `${columns.get(key)} AS stored_${index}, ${rawPropertyValue('properties', key, params)} AS json_${index}`);
    const [row] = await warehouse.query<Record<string, string>>(`SELECT ${read.join(', ')} FROM events`, params.all);
    for (const index of keys.keys()) {
      assert.equal(row![`stored_${index}`], row![`json_${index}`], keys[index]);
      assert.equal(row![`stored_${index}`], readable(keys[index]!) ? `value ${index}` : '', keys[index]);
    }
  } finally {
    await warehouse.close();
  }
});
