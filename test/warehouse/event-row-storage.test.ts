import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { EventRowBuffer } from '../../src/capture/event-row-buffer.js';
import { EventWriter } from '../../src/capture/event-writer.js';
import { ChdbWarehouse } from '../../src/storage/warehouse/chdb-warehouse.js';
import { migrateWarehouse } from '../../src/storage/warehouse/migrations.js';
import { eventRowFixture } from '../support/event-rows.js';
import { tempDataDir } from '../support/tally.js';

test('the warehouse stores every column of an event row as given', async () => {
  const directory = tempDataDir('tally-event-row-');
  const warehouse = new ChdbWarehouse(directory);
  try {
    await migrateWarehouse(warehouse);
    const properties = '{"text":"a \\"quoted\\" word \\u00e9","n":2.50,"nested":{"list":[1,null,true]},"$set":{"plan":"pro"}}';
    const personProperties = '{"email":"a@example.com","$initial_os":"Mac OS X"}';
    const rows = new EventRowBuffer();
    rows.add(
      eventRowFixture({
        uuid: '0190A3F2-0000-7000-8000-00000000000F',
        team_id: 7,
        event: 'quote " and \\ and \u2028 and \n',
        distinct_id: 'd\u{1F600}',
        properties,
        timestamp: Date.UTC(2024, 0, 1) * 1000 + 123_456,
        created_at: Date.UTC(2024, 0, 2, 3, 4, 5) * 1000 + 1,
        elements_chain: 'a:href="/x"',
        person_id: '0190a3f2-0000-7000-8000-000000000002',
        person_properties: personProperties,
        person_created_at: Date.UTC(1850, 5, 6, 7, 8, 9) * 1000 + 987_654,
        person_mode: 'propertyless',
        $group_0: 'org',
        $group_4: 'x'.repeat(300),
        $session_id: 's',
      }),
    );
    rows.add(eventRowFixture({ uuid: '0190a3f2-0000-7000-8000-000000000010', event: 'second' }));
    await new EventWriter(warehouse).insertNew(rows);
    const stored = await warehouse.query(
      `SELECT toString(uuid) AS uuid, toString(team_id) AS team_id, event, distinct_id, properties, toString(timestamp) AS timestamp,
              toString(created_at) AS created_at, elements_chain, toString(person_id) AS person_id, person_properties,
              toString(person_created_at) AS person_created_at, person_mode, $group_0, $group_1, $group_4, $session_id
       FROM events ORDER BY uuid`,
    );
    assert.deepEqual(stored[0], {
      uuid: '0190a3f2-0000-7000-8000-00000000000f',
      team_id: '7',
      event: 'quote " and \\ and \u2028 and \n',
      distinct_id: 'd\u{1F600}',
      properties,
      timestamp: '2024-01-01 00:00:00.123456',
      created_at: '2024-01-02 03:04:05.000001',
      elements_chain: 'a:href="/x"',
      person_id: '0190a3f2-0000-7000-8000-000000000002',
      person_properties: personProperties,
      person_created_at: '1850-06-06 07:08:09.987',
      person_mode: 'propertyless',
      $group_0: 'org',
      $group_1: '',
      $group_4: 'x'.repeat(300),
      $session_id: 's',
    });
    assert.equal((stored[1] as { event: string }).event, 'second', 'the row after a long value starts where it should');
  } finally {
    await warehouse.close();
    fs.rmSync(directory, { recursive: true, force: true });
  }
});
