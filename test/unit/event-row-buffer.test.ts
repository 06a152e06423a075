import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { EventRowBuffer } from '../../src/capture/event-row-buffer.js';

test('an event row buffer holds its lines as UTF-8, newline-separated, and leaves out the rows asked', () => {
  fc.assert(
    fc.property(
      fc.array(fc.record({ teamId: fc.integer({ min: 1, max: 3 }), uuid: fc.uuid(), line: fc.json() }), { maxLength: 40 }),
      fc.array(fc.nat(50)),
      (rows, skippedIndexes) => {
        const buffer = new EventRowBuffer();
        for (const row of rows) buffer.add(row.teamId, row.uuid, row.line);
        assert.equal(buffer.count, rows.length);
        rows.forEach((row, index) => {
          assert.equal(buffer.teamIdOf(index), row.teamId);
          assert.equal(buffer.uuidOf(index), row.uuid);
        });
        const skipped = new Set(skippedIndexes);
        const expected = rows.filter((_, index) => !skipped.has(index)).map((row) => row.line);
        assert.equal(buffer.lines(skipped).toString('utf8'), expected.join('\n'));
        assert.equal(buffer.lines().toString('utf8'), rows.map((row) => row.line).join('\n'));
      },
    ),
  );
});

test('an event row buffer grows past its first megabyte without losing a byte', () => {
  const buffer = new EventRowBuffer();
  const line = `{"text":"${'é✓'.repeat(50_000)}"}`;
  for (let index = 0; index < 30; index++) buffer.add(1, `uuid-${index}`, line);
  assert.equal(buffer.lines().toString('utf8'), Array.from({ length: 30 }, () => line).join('\n'));
});
