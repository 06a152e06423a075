import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, test } from 'node:test';
import type { ActorSortItem } from '../../src/insights/actors/actor-page.js';
import { actorPageSql, NEWEST_PERSON_FIRST } from '../../src/insights/actors/actor-page-sql.js';
import { MaterializedProperties, PERSON_PROPERTY_COLUMNS } from '../../src/query/materialized-properties.js';
import { SqlParams } from '../../src/query/sql-params.js';
import { ChdbWarehouse } from '../../src/storage/warehouse/chdb-warehouse.js';
import { migrateWarehouse } from '../../src/storage/warehouse/migrations.js';
import { personRowFixture, personRowUuid } from '../support/person-rows.js';
import { tempDataDir } from '../support/tally.js';

const directory = tempDataDir('tally-actor-order-');
after(() => fs.rmSync(directory, { recursive: true, force: true }));

const KEY = `plan "it's" ü`;
/** Person N + 1 has the value at N; the last person does not have the key. */
const VALUES: unknown[] = ['pro', 'with "quotes"', 'ü-ñ', 1.5, 10, -0.25, true, false, null, { nested: [1, 'a'] }, ['x', 2], '', '42'];
const MISSING = VALUES.length + 1;

/** Every person of team 1 (and one deleted since, `actor` 999), ordered by the property; the person numbers in page order. */
async function ordered(warehouse: ChdbWarehouse, column: string | null, descending: boolean): Promise<number[]> {
  const params = new SqlParams({ team_id: 1 });
  const actors = `SELECT id AS actor FROM persons WHERE team_id = 1 UNION ALL SELECT toUUID(${params.add(personRowUuid(999), 'String')}) AS actor`;
  const order: ActorSortItem[] = [{ key: { kind: 'property', key: KEY, column }, descending }];
  const sql = actorPageSql({ sql: actors, persons: 'joined', order: NEWEST_PERSON_FIRST }, { limit: 100, offset: 0, order }, params);
  const rows = await warehouse.query<{ actor_id: string }>(sql, params.all);
  return rows.map((row) => Number(row.actor_id.slice(-12)));
}

test('a property orders numbers by value, then text by its bytes, then no value, the same from the JSON as from its column', async () => {
  const warehouse = new ChdbWarehouse(directory);
  try {
    await migrateWarehouse(warehouse);
    await warehouse.insert('persons', [
      ...VALUES.map((value, index) => personRowFixture(index + 1, { [KEY]: value })),
      personRowFixture(MISSING, { other: 1 }),
    ]);
    // -0.25, 1.5, 10, '42'; then ["x",2], false, pro, true, with "quotes", {"nested":…}, ü-ñ; then
    // null, '' and no key, which tie and keep the source's order (the highest person id first);
    // the deleted person last.
    const ascending = [6, 4, 5, 13, 11, 8, 1, 7, 2, 10, 3, MISSING, 12, 9, 999];
    const descending = [3, 10, 2, 7, 1, 8, 11, 13, 5, 4, 6, MISSING, 12, 9, 999];
    assert.deepEqual(await ordered(warehouse, null, false), ascending);
    assert.deepEqual(await ordered(warehouse, null, true), descending);
    const materialized = new MaterializedProperties(warehouse, PERSON_PROPERTY_COLUMNS, (error) => assert.fail(String(error)));
    const column = (await materialized.columnsFor([KEY])).get(KEY)!;
    assert.deepEqual(await ordered(warehouse, column, false), ascending);
    assert.deepEqual(await ordered(warehouse, column, true), descending);
  } finally {
    await warehouse.close();
  }
});
