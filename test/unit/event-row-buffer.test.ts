import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { EventRowBuffer } from '../../src/capture/event-row-buffer.js';
import { eventRowFixture } from '../support/event-rows.js';

test('an event row buffer keeps each row’s key and leaves out the rows asked, whatever size its pieces', () => {
  fc.assert(
    fc.property(
      fc.array(fc.record({ teamId: fc.integer({ min: 1, max: 3 }), uuid: fc.uuid(), properties: fc.json() }), { maxLength: 40 }),
      fc.array(fc.nat(50)),
      fc.integer({ min: 1, max: 2_000 }),
      (rows, skippedIndexes, pieceBytes) => {
        const buffer = new EventRowBuffer(pieceBytes);
        const alone = rows.map((row) => {
          const fixture = eventRowFixture({ team_id: row.teamId, uuid: row.uuid, properties: row.properties });
          buffer.add(fixture);
          const single = new EventRowBuffer();
          single.add(fixture);
          return Buffer.concat(single.encoded());
        });
        assert.equal(buffer.count, rows.length);
        rows.forEach((row, index) => {
          assert.equal(buffer.teamIdOf(index), row.teamId);
          assert.equal(buffer.uuidOf(index), row.uuid);
        });
        const skipped = new Set(skippedIndexes);
        assert.deepEqual(Buffer.concat(buffer.encoded(skipped)), Buffer.concat(alone.filter((_, index) => !skipped.has(index))));
        assert.deepEqual(Buffer.concat(buffer.encoded()), Buffer.concat(alone));
        assert.equal(buffer.byteLength, Buffer.concat(alone).length);
        // Each piece ends where a row does, and is full unless it is the last.
        const rowEnds = new Set(alone.map((_, index) => Buffer.concat(alone.slice(0, index + 1)).length));
        const pieces = buffer.encoded();
        let pieceEnd = 0;
        for (const [index, piece] of pieces.entries()) {
          pieceEnd += piece.length;
          assert.ok(rowEnds.has(pieceEnd));
          if (index < pieces.length - 1) assert.ok(piece.length >= pieceBytes);
        }
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
  assert.deepEqual(Buffer.concat(pieces.encoded()), Buffer.concat(whole.encoded()));
});
