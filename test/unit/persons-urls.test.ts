import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DateTime } from 'luxon';
import { PersonsUrls, pythonIsoformat } from '../../src/insights/trends/persons-urls.js';

test('pythonIsoformat renders as DRF does: microseconds when present, Z for UTC, ±HH:MM offsets', () => {
  const at = (iso: string, zone: string) => pythonIsoformat(DateTime.fromISO(iso, { zone }));
  assert.equal(at('2020-01-01T00:00:00Z', 'UTC'), '2020-01-01T00:00:00Z');
  assert.equal(at('2020-01-01T23:59:59.999Z', 'UTC'), '2020-01-01T23:59:59.999999Z');
  assert.equal(at('2020-01-01T10:00:00.123Z', 'UTC'), '2020-01-01T10:00:00.123000Z');
  assert.equal(at('2020-03-08T09:30:00Z', 'US/Pacific'), '2020-03-08T01:30:00-08:00');
  assert.equal(at('2020-07-01T00:00:00Z', 'Asia/Kolkata'), '2020-07-01T05:30:00+05:30');
  assert.equal(at('2020-07-01T00:00:00Z', 'America/St_Johns'), '2020-06-30T21:30:00-02:30');
  assert.equal(at('0999-05-06T07:08:09Z', 'UTC'), '0999-05-06T07:08:09Z');
});

test('persons URLs set their own parameters over the filter in place, new ones after, nulls left out', () => {
  const urls = new PersonsUrls(7, { insight: 'TRENDS', date_from: '-7d', events: [{ id: 'a b' }], date_to: null }, 'key');
  assert.equal(
    urls.url({ entity_id: 'a b', date_from: '2020-01-01T00:00:00Z', date_to: '2020-01-01T23:59:59.999999Z', entity_order: 0 }),
    'api/projects/7/persons/trends/?insight=TRENDS&date_from=2020-01-01T00%3A00%3A00Z&events=%5B%7B%22id%22%3A%22a+b%22%7D%5D' +
      '&date_to=2020-01-01T23%3A59%3A59.999999Z&entity_id=a+b&entity_order=0&cache_invalidation_key=key',
  );
  assert.equal(
    urls.url({ date_from: null }),
    'api/projects/7/persons/trends/?insight=TRENDS&events=%5B%7B%22id%22%3A%22a+b%22%7D%5D&cache_invalidation_key=key',
  );
});
