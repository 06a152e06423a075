import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { rowEnds, RowBinaryWriter, structureOf, writeValue, type WarehouseColumn } from '../../src/storage/warehouse/row-binary.js';
import { quotedIdentifier } from '../../src/storage/warehouse/warehouse-sql.js';

function bytesOf(write: (writer: RowBinaryWriter) => void): string {
  const writer = new RowBinaryWriter();
  write(writer);
  return writer.bytes().toString('hex');
}

test('RowBinary strings are a LEB128 byte length, then UTF-8', () => {
  assert.equal(
    bytesOf((writer) => writer.string('')),
    '00',
  );
  assert.equal(
    bytesOf((writer) => writer.string('é')),
    '02c3a9',
  );
  assert.equal(
    bytesOf((writer) => writer.string('\u{1F600}')),
    '04f09f9880',
  );
  // 42 units may take 126 bytes: still one length byte.
  assert.equal(bytesOf((writer) => writer.string('€'.repeat(42))).slice(0, 2), '7e');
  assert.equal(
    bytesOf((writer) => writer.string('a'.repeat(64))),
    `40${'61'.repeat(64)}`,
  );
  assert.equal(
    bytesOf((writer) => writer.string(`${'a'.repeat(63)}é`)),
    `41${'61'.repeat(63)}c3a9`,
  );
  assert.equal(bytesOf((writer) => writer.string('a'.repeat(127))).slice(0, 4), '7f61');
  assert.equal(bytesOf((writer) => writer.string('a'.repeat(128))).slice(0, 6), '800161');
  assert.equal(bytesOf((writer) => writer.string('a'.repeat(300))).slice(0, 6), 'ac0261');
  assert.equal(bytesOf((writer) => writer.string('é'.repeat(10_000))).slice(0, 8), 'a09c01c3');
});

test('RowBinary UUIDs are two little-endian halves; Int64 is little-endian two’s complement', () => {
  assert.equal(
    bytesOf((writer) => writer.uuid('12345678-9abc-def0-1234-56789ABCDEF0')),
    'f0debc9a78563412f0debc9a78563412',
  );
  assert.throws(() => bytesOf((writer) => writer.uuid('12345678')), /not a UUID/);
  assert.equal(
    bytesOf((writer) => writer.int64(1)),
    '0100000000000000',
  );
  assert.equal(
    bytesOf((writer) => writer.int64(-1)),
    'ffffffffffffffff',
  );
  assert.equal(
    bytesOf((writer) => writer.int64(2 ** 32 + 2)),
    '0200000001000000',
  );
  assert.equal(
    bytesOf((writer) => writer.int64(-(2 ** 32) - 1)),
    'fffffffffeffffff',
  );
  assert.equal(
    bytesOf((writer) => writer.int64(Number.MAX_SAFE_INTEGER)),
    'ffffffffffff1f00',
  );
  assert.equal(
    bytesOf((writer) => writer.uint8(255)),
    'ff',
  );
});

test('a RowBinary writer grows past its first buffer without losing a byte, whatever its size', () => {
  const text = 'é✓'.repeat(50_000);
  const one = Buffer.concat([Buffer.from([0x90, 0xa1, 0x0f]), Buffer.from(text)]);
  for (const writer of [new RowBinaryWriter(), new RowBinaryWriter(1), new RowBinaryWriter(4 * 1024 * 1024)]) {
    for (let index = 0; index < 30; index++) writer.string(text);
    assert.deepEqual(writer.bytes(), Buffer.concat(Array.from({ length: 30 }, () => one)));
  }
});

test('a cleared RowBinary writer holds only what is written after', () => {
  const writer = new RowBinaryWriter();
  writer.string('x'.repeat(100_000));
  writer.clear();
  assert.equal(writer.length, 0);
  writer.string('ab');
  writer.uint8(7);
  assert.equal(writer.bytes().toString('hex'), '02616207');
});

test('column names reach SQL only as checked, backquoted identifiers', () => {
  assert.equal(
    structureOf([
      { name: '$group_0', type: 'String' },
      { name: 'at', type: "DateTime64(6, 'UTC')" },
    ]),
    "`$group_0` String, `at` DateTime64(6, 'UTC')",
  );
  assert.throws(() => quotedIdentifier('a`; DROP TABLE events'), /not a warehouse identifier/);
  assert.throws(() => quotedIdentifier(''), /not a warehouse identifier/);
});

const MIXED: WarehouseColumn[] = [
  { name: 'id', type: 'UUID' },
  { name: 'text', type: 'String' },
  { name: 'count', type: 'Int64' },
  { name: 'flag', type: 'UInt8' },
  { name: 'at', type: "DateTime64(6, 'UTC')" },
  { name: 'version', type: 'UInt64' },
];

test('rows written value by value are found again row by row', () => {
  const writer = new RowBinaryWriter();
  const ends: number[] = [];
  for (const text of ['', 'é', 'x'.repeat(200), 'a'.repeat(70_000)]) {
    for (const [column, value] of MIXED.map((column, index) => [column, [crypto.randomUUID(), text, -5, 1, 1_704_067_200_000_123, 9][index]] as const)) {
      writeValue(writer, column, value);
    }
    ends.push(writer.length);
  }
  assert.deepEqual(rowEnds(writer.bytes(), MIXED), ends);
  assert.deepEqual(rowEnds(writer.bytes(0, 0), MIXED), []);
  assert.throws(() => rowEnds(writer.bytes(0, ends[1]! - 1), MIXED), /cut short/);
  assert.throws(() => rowEnds(writer.bytes(0, ends[0]! + 17), MIXED), /cut short/);
});

test('a value the column cannot hold is refused, not written as something else', () => {
  const writer = new RowBinaryWriter();
  assert.throws(() => writeValue(writer, MIXED[0]!, 7), /column id \(UUID\) cannot hold 7/);
  assert.throws(() => writeValue(writer, MIXED[1]!, null), /cannot hold null/);
  assert.throws(() => writeValue(writer, MIXED[2]!, Number.NaN), /cannot hold/);
  assert.throws(() => writeValue(writer, MIXED[2]!, 1.5), /cannot hold/);
  assert.throws(() => writeValue(writer, MIXED[3]!, 256), /cannot hold/);
  assert.throws(() => writeValue(writer, { name: 'f', type: 'Float64' }, 1), /no RowBinary encoding for Float64/);
  assert.equal(writer.length, 0);
});

test('a String written in pieces, text or its UTF-8 bytes, is the String of the text they make', () => {
  fc.assert(
    fc.property(fc.array(fc.tuple(fc.string({ unit: 'binary', maxLength: 300 }), fc.boolean()), { maxLength: 6 }), (pieces) => {
      assert.equal(
        bytesOf((writer) => writer.stringOfPieces(pieces.map(([text, asBytes]) => (asBytes ? Buffer.from(text, 'utf8') : text)))),
        bytesOf((writer) => writer.string(pieces.map(([text]) => text).join(''))),
      );
    }),
  );
  assert.equal(
    bytesOf((writer) => writer.stringOfPieces(['a'.repeat(100), 'é'.repeat(20)])),
    bytesOf((writer) => writer.string(`${'a'.repeat(100)}${'é'.repeat(20)}`)),
  );
});
