import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { EventRowBuffer } from '../../src/capture/event-row-buffer.js';
import { EventWriter, eventRowLine } from '../../src/capture/event-writer.js';
import { ChdbWarehouse } from '../../src/storage/warehouse/chdb-warehouse.js';
import { migrateWarehouse } from '../../src/storage/warehouse/migrations.js';
import { eventRowFixture } from '../support/event-rows.js';
import { tempDataDir } from '../support/tally.js';

test('the warehouse stores the property columns of an event row line as the exact text given', async () => {
  const directory = tempDataDir('tally-event-row-');
  const warehouse = new ChdbWarehouse(directory);
  try {
    await migrateWarehouse(warehouse);
    const properties = '{"text":"a \\"quoted\\" word \\u00e9","n":2.50,"nested":{"list":[1,null,true]},"$set":{"plan":"pro"}}';
    const personProperties = '{"email":"a@example.com","$initial_os":"Mac OS X"}';
    const row = eventRowFixture({
      properties,
      timestamp: '2024-01-01 00:00:00.123456',
      person_id: '0190a3f2-0000-7000-8000-000000000002',
      person_properties: personProperties,
    });
    const rows = new EventRowBuffer();
    rows.add(7, row.uuid, eventRowLine(row));
    await new EventWriter(warehouse).insertNew(rows);
    assert.deepEqual(await warehouse.query('SELECT properties, person_properties FROM events'), [{ properties, person_properties: personProperties }]);
  } finally {
    await warehouse.close();
    fs.rmSync(directory, { recursive: true, force: true });
  }
});
