import assert from 'node:assert/strict';
import { test } from 'node:test';
import { normaliseTimezone } from '../../src/projects/timezone.js';

test('time zones are validated and normalised for ClickHouse', () => {
  assert.equal(normaliseTimezone('UTC'), 'UTC');
  assert.equal(normaliseTimezone('utc'), 'UTC');
  assert.equal(normaliseTimezone('Europe/London'), 'Europe/London');
  assert.equal(normaliseTimezone('europe/london'), 'Europe/London');
  assert.equal(normaliseTimezone('US/Pacific'), 'US/Pacific');
  assert.equal(normaliseTimezone('us/pacific'), 'America/Los_Angeles');
  assert.equal(normaliseTimezone('Mars/Olympus'), null);
  assert.equal(normaliseTimezone(''), null);
  assert.equal(normaliseTimezone(' UTC'), null);
});
