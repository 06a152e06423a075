import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { EventRowBuffer } from '../../src/capture/event-row-buffer.js';
import { eventRowFixture } from '../support/event-rows.js';

test('an event row buffer keeps each row’s key and leaves out the rows asked', () => {
  fc.assert(
    fc.property(
      fc.array(fc.record({ teamId: fc.integer({ min: 1, max: 3 }), uuid: fc.uuid(), properties: fc.json() }), { maxLength: 40 }),
      fc.array(fc.nat(50)),
      (rows, skippedIndexes) => {
        const buffer = new EventRowBuffer();
        const alone = rows.map((row) => {
          const fixture = eventRowFixture({ team_id: row.teamId, uuid: row.uuid, properties: row.properties });
          buffer.add(fixture);
          const single = new EventRowBuffer();
          single.add(fixture);
          return Buffer.from(single.encoded());
        });
        assert.equal(buffer.count, rows.length);
        rows.forEach((row, index) => {
          assert.equal(buffer.teamIdOf(index), row.teamId);
          assert.equal(buffer.uuidOf(index), row.uuid);
        });
        const skipped = new Set(skippedIndexes);
        assert.deepEqual(buffer.encoded(skipped), Buffer.concat(alone.filter((_, index) => !skipped.has(index))));
        assert.deepEqual(buffer.encoded(), Buffer.concat(alone));
      },
    ),
  );
});

test('a cleared event row buffer starts again from no rows', () => {
  const buffer = new EventRowBuffer();
  buffer.add(eventRowFixture({ team_id: 1, uuid: '0189d1e6-0000-7000-8000-000000000001', properties: JSON.stringify({ big: 'x'.repeat(200_000) }) }));
  buffer.clear();
  assert.equal(buffer.count, 0);
  assert.equal(buffer.encoded().length, 0);
  const row = eventRowFixture({ team_id: 2, uuid: '0189d1e6-0000-7000-8000-000000000002', properties: '{"small":1}' });
  buffer.add(row);
  const fresh = new EventRowBuffer();
  fresh.add(row);
  assert.equal(buffer.count, 1);
  assert.equal(buffer.teamIdOf(0), 2);
  assert.equal(buffer.uuidOf(0), '0189d1e6-0000-7000-8000-000000000002');
  assert.deepEqual(buffer.encoded(), fresh.encoded());
});
