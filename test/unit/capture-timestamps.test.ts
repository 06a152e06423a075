import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseTimestamp, resolveEventTime, resolveSentAt } from '../../src/capture/timestamps.js';

const NOW = Date.parse('2023-01-01T12:00:00Z');
const at = (iso: string) => Date.parse(iso);
const resolved = (timestamp: unknown, extra: Partial<Parameters<typeof resolveEventTime>[0]> = {}) =>
  resolveEventTime({ timestamp, offset: undefined, sentAt: null, ignoreSentAt: false, now: NOW, ...extra });
const resolve = (timestamp: unknown, extra: Partial<Parameters<typeof resolveEventTime>[0]> = {}) => new Date(resolved(timestamp, extra).time).toISOString();

test('PostHog examples of skew correction (spec A2)', () => {
  assert.equal(resolve('2023-01-01T11:00:00Z', { sentAt: at('2023-01-01T12:00:10Z') }), '2023-01-01T10:59:50.000Z');
  assert.equal(resolve('2023-01-01T11:00:00Z', { sentAt: at('2023-01-01T11:59:50Z') }), '2023-01-01T11:00:10.000Z');
  assert.equal(resolve('2023-01-01T11:00:00Z'), '2023-01-01T11:00:00.000Z');
  assert.equal(resolve('2023-01-01T11:00:00Z', { sentAt: at('2023-01-01T12:00:10Z'), ignoreSentAt: true }), '2023-01-01T11:00:00.000Z');
  assert.equal(resolve(undefined, { sentAt: at('2023-01-01T12:00:10Z') }), '2023-01-01T12:00:00.000Z');
  assert.equal(resolve('2023-01-01T11:00:00Z', { offset: 5000 }), '2023-01-01T11:59:55.000Z');
});

test('future clamp, garbage and out-of-range years', () => {
  assert.equal(resolve('2023-01-02T11:00:01Z'), '2023-01-01T12:00:00.000Z');
  assert.equal(resolve('2023-01-02T10:59:00Z'), '2023-01-02T10:59:00.000Z');
  assert.equal(resolve('yesterday'), '2023-01-01T12:00:00.000Z');
  assert.equal(resolve(1672570800000), '2023-01-01T12:00:00.000Z');
  assert.equal(resolve('2023-13-01T00:00:00Z'), '2023-01-01T12:00:00.000Z');
});

test('a time before 1900, after correction, becomes now with a warning that keeps what the event said', () => {
  for (const timestamp of ['0001-01-01T00:00:00Z', '1899-12-31T23:59:59Z', '-62135596800000']) {
    const { time, warning } = resolved(timestamp);
    assert.equal(time, NOW, timestamp);
    assert.deepEqual(warning, {
      type: 'ignored_invalid_timestamp',
      details: { field: 'timestamp', value: timestamp, sentAt: null, reason: 'before 1900-01-01, the earliest time events are stored with' },
    });
  }
  assert.deepEqual(resolved('1900-01-01T00:00:00Z'), { time: at('1900-01-01T00:00:00Z'), warning: null });
  // A client clock far ahead moves a sane timestamp before 1900.
  assert.equal(resolved('2023-01-01T11:00:00Z', { sentAt: at('2200-01-01T00:00:00Z') }).time, NOW);
  assert.equal(resolved('2023-01-01T11:00:00Z', { sentAt: at('2200-01-01T00:00:00Z') }).warning?.type, 'ignored_invalid_timestamp');
  const fromOffset = resolved(undefined, { offset: 1e15 });
  assert.equal(fromOffset.time, NOW);
  assert.deepEqual(fromOffset.warning?.details, {
    field: 'offset',
    value: 1e15,
    sentAt: null,
    reason: 'before 1900-01-01, the earliest time events are stored with',
  });
});

test('a time more than 23 hours ahead becomes now with a warning; garbage with one too; no timestamp with none', () => {
  const future = resolved('9999-12-31T23:59:59Z', { sentAt: at('2023-01-01T12:00:00Z') });
  assert.equal(future.time, NOW);
  assert.deepEqual(future.warning, {
    type: 'event_timestamp_in_future',
    details: {
      timestamp: '9999-12-31T23:59:59Z',
      sentAt: '2023-01-01T12:00:00.000Z',
      offset: null,
      now: '2023-01-01T12:00:00.000Z',
      result: '2023-01-01T12:00:00.000Z',
    },
  });
  assert.equal(resolved(undefined, { offset: -1e15 }).warning?.type, 'event_timestamp_in_future');
  assert.deepEqual(resolved('yesterday').warning, {
    type: 'ignored_invalid_timestamp',
    details: { field: 'timestamp', value: 'yesterday', reason: 'not a date and time' },
  });
  assert.deepEqual(resolved(undefined), { time: NOW, warning: null });
  assert.deepEqual(resolved(''), { time: NOW, warning: null });
});

test('accepted time formats', () => {
  assert.equal(parseTimestamp('2023-01-01'), at('2023-01-01T00:00:00Z'));
  assert.equal(parseTimestamp('2023-01-01 12:00:00'), at('2023-01-01T12:00:00Z'));
  assert.equal(parseTimestamp('2023-01-01T12:00:00'), at('2023-01-01T12:00:00Z'));
  assert.equal(parseTimestamp('2023/01/01 12:00:00'), at('2023-01-01T12:00:00Z'));
  assert.equal(parseTimestamp('2023-01-01T12:00:00+03'), at('2023-01-01T09:00:00Z'));
  assert.equal(parseTimestamp('2023-01-01T12:00:00-0130'), at('2023-01-01T13:30:00Z'));
  assert.equal(parseTimestamp('Sun, 01 Jan 2023 12:00:00 +0000'), at('2023-01-01T12:00:00Z'));
  assert.equal(parseTimestamp('1672574400000'), at('2023-01-01T12:00:00Z'));
  assert.equal(parseTimestamp('1672574400'), at('2023-01-01T12:00:00Z'));
  assert.equal(parseTimestamp('2023-01-01T12:00:00.123456Z'), at('2023-01-01T12:00:00.123Z') + 0.456);
  assert.equal(parseTimestamp('2023-02-30'), null);
  assert.equal(parseTimestamp(''), null);
});

test('sent_at from the body, or the _ query parameter in milliseconds', () => {
  assert.equal(resolveSentAt('2023-01-01T12:00:00Z', {}), at('2023-01-01T12:00:00Z'));
  assert.equal(resolveSentAt(undefined, { _: '1672574400000' }), at('2023-01-01T12:00:00Z'));
  assert.equal(resolveSentAt(undefined, { _: '1672574400' }), null, 'seconds decode to 1970 and are ignored');
  assert.equal(resolveSentAt(undefined, {}), null);
});

test('times a date cannot hold are not times', () => {
  assert.equal(parseTimestamp('8640000000000001'), null);
  assert.equal(parseTimestamp('-99999999999999999999'), null);
  assert.equal(parseTimestamp('8640000000000000'), 8.64e15);
  assert.equal(resolveSentAt('8640000000000001', {}), null);
  assert.deepEqual(resolved('2023-01-01T11:00:00Z', { sentAt: resolveSentAt('8640000000000001', {}) }), { time: at('2023-01-01T11:00:00Z'), warning: null });
});
