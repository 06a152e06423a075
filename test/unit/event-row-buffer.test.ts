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

test('properties given in pieces encode as the text they make', () => {
  const properties = '{"plan":"pro","$group_0":"company-7"}';
  const whole = new EventRowBuffer();
  whole.add(eventRowFixture({ properties }));
  const pieces = new EventRowBuffer();
  pieces.add(eventRowFixture({ properties: [Buffer.from('{"plan":"pro"'), ',', '"$group_0":"company-7"', '}'] }));
  assert.deepEqual(pieces.encoded(), whole.encoded());
});
