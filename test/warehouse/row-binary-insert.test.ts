import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import fc from 'fast-check';
import { ChdbWarehouse } from '../../src/storage/warehouse/chdb-warehouse.js';
import { RowBinaryWriter, type WarehouseColumn } from '../../src/storage/warehouse/row-binary.js';
import { tempDataDir } from '../support/tally.js';

const COLUMNS: WarehouseColumn[] = [
  { name: 'id', type: 'UInt8' },
  { name: 'text', type: 'String' },
  { name: 'uuid', type: 'UUID' },
  { name: 'number', type: 'Int64' },
  { name: 'at', type: "DateTime64(6, 'UTC')" },
];

test('chDB reads back exactly what the RowBinary writer wrote: any text, UUID and safe integer', async () => {
  const directory = tempDataDir('tally-row-binary-');
  const warehouse = new ChdbWarehouse(directory);
  try {
    await warehouse.command(
      "CREATE TABLE values_written (id UInt8, text String, uuid UUID, number Int64, at DateTime64(6, 'UTC'), unset String) ENGINE = MergeTree ORDER BY id",
    );
    const row = fc.record({
      text: fc.oneof(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'grapheme', minLength: 40, maxLength: 400 })),
      uuid: fc.uuid(),
      number: fc.maxSafeInteger(),
      micros: fc.integer({ min: Date.UTC(1900, 0, 1) * 1000, max: Date.UTC(2299, 0, 1) * 1000 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(row, { minLength: 1, maxLength: 30 }), async (rows) => {
        await warehouse.command('TRUNCATE TABLE values_written');
        const writer = new RowBinaryWriter();
        rows.forEach((value, index) => {
          writer.uint8(index);
          writer.string(value.text);
          writer.uuid(value.uuid);
          writer.int64(value.number);
          writer.int64(value.micros);
        });
        // In two pieces, as a batch's rows come: the insert takes them one after the other.
        const bytes = writer.bytes();
        await warehouse.insertRowBinary('values_written', COLUMNS, [bytes.subarray(0, bytes.length >> 1), bytes.subarray(bytes.length >> 1)]);
        const stored = await warehouse.query<{ text: string; uuid: string; number: string; micros: string; unset: string }>(
          'SELECT text, toString(uuid) AS uuid, toString(number) AS number, toString(toUnixTimestamp64Micro(at)) AS micros, unset FROM values_written ORDER BY id',
        );
        assert.deepEqual(
          stored,
          rows.map((value) => ({ text: value.text, uuid: value.uuid, number: String(value.number), micros: String(value.micros), unset: '' })),
        );
      }),
      { numRuns: 40 },
    );
    assert.deepEqual(fs.readdirSync(`${directory}/tally-inserts`), [], 'no staged file is left behind');
  } finally {
    await warehouse.close();
    fs.rmSync(directory, { recursive: true, force: true });
  }
});
