import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { epochMsToMicros, isoToMicros, isoWithMicros } from '../../src/util/iso-time.js';

test('epoch milliseconds with a fraction become whole microseconds, never rounding into the next millisecond', () => {
  assert.equal(epochMsToMicros(1_704_067_200_000.123), 1_704_067_200_000_123);
  // biome-ignore lint/correctness/noPrecisionLoss: the nearest double is what a client's clock gives, and what the rounding must handle
  assert.equal(epochMsToMicros(1_704_067_200_000.9996), 1_704_067_200_000_999);
  assert.equal(epochMsToMicros(-1.5), -1500);
  assert.equal(isoWithMicros(1_704_067_200_000.123), '2024-01-01T00:00:00.000123Z');
});

test('ISO text becomes epoch microseconds, its six fractional digits kept', () => {
  assert.equal(isoToMicros('2024-01-01T00:00:00.123456Z'), 1_704_067_200_123_456);
  assert.equal(isoToMicros('2024-01-01T00:00:00.5Z'), 1_704_067_200_500_000);
  assert.equal(isoToMicros('2024-01-01T00:00:00Z'), 1_704_067_200_000_000);
  assert.equal(isoToMicros('1969-12-31T23:59:59.999999Z'), -1);
  assert.equal(isoToMicros('1850-06-06T07:08:09.987654Z'), Date.UTC(1850, 5, 6, 7, 8, 9) * 1000 + 987_654);
});

test('ISO text written with microseconds reads back as the same microseconds', () => {
  fc.assert(
    fc.property(fc.integer({ min: Date.UTC(1900, 0, 1), max: Date.UTC(2299, 0, 1) }), fc.integer({ min: 0, max: 999 }), (ms, micros) => {
      const time = ms + micros / 1000;
      assert.equal(isoToMicros(isoWithMicros(time)), epochMsToMicros(time));
    }),
  );
});
