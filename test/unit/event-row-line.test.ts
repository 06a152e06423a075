import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eventRowLine } from '../../src/capture/event-writer.js';
import { eventRowFixture } from '../support/event-rows.js';

const row = eventRowFixture({
  event: 'quote " and \\ and \u2028 and \n',
  distinct_id: 'd\u{1F600}',
  properties: '{"text":"a \\"quoted\\" word","nested":{"list":[1,2.50,null,true]},"$set":{"plan":"pro"}}',
  timestamp: '2024-01-01 00:00:00.123456',
  created_at: '2024-01-02 00:00:00.000000',
  elements_chain: 'a:href="/x"',
  person_id: '0190a3f2-0000-7000-8000-000000000002',
  $group_0: 'org',
  $session_id: 's',
});

test('an event row line is one JSON object with every column; the property columns are embedded objects, their text unchanged', () => {
  const line = eventRowLine(row);
  assert.ok(!line.includes('\n'), 'one line');
  const parsed = JSON.parse(line) as Record<string, unknown>;
  assert.deepEqual(Object.keys(parsed).sort(), Object.keys(row).sort());
  for (const [column, value] of Object.entries(row)) {
    if (column === 'properties' || column === 'person_properties') assert.deepEqual(parsed[column], JSON.parse(value as string), column);
    else assert.equal(parsed[column], value, column);
  }
  assert.ok(line.includes(`"properties":${row.properties},`), 'the properties text is embedded as it is');
});
