import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { detectPropertyType } from '../../src/definitions/property-type.js';

const NOW_MS = Date.UTC(2024, 5, 15, 12, 0, 0);
const NOW_SECONDS = NOW_MS / 1000;
const SIX_MONTHS_SECONDS = 15_768_000;

function detect(key: string, value: unknown) {
  return detectPropertyType(key, value, NOW_MS);
}

describe('property type detection', () => {
  test('numbers are Numeric, booleans Boolean, other strings String', () => {
    assert.equal(detect('price', 12.5), 'Numeric');
    assert.equal(detect('count', 0), 'Numeric');
    assert.equal(detect('count', -3), 'Numeric');
    assert.equal(detect('is_paid', true), 'Boolean');
    assert.equal(detect('is_paid', false), 'Boolean');
    assert.equal(detect('plan', 'pro'), 'String');
    assert.equal(detect('plan', ''), 'String');
    assert.equal(detect('plan', '42'), 'String');
  });

  test('null, objects and arrays have no type', () => {
    assert.equal(detect('x', null), null);
    assert.equal(detect('x', undefined), null);
    assert.equal(detect('x', { a: 1 }), null);
    assert.equal(detect('x', [1, 2]), null);
  });

  test('"true"/"false" strings are Boolean in lower or upper case, trimmed', () => {
    assert.equal(detect('flag', 'true'), 'Boolean');
    assert.equal(detect('flag', 'false'), 'Boolean');
    assert.equal(detect('flag', 'TRUE'), 'Boolean');
    assert.equal(detect('flag', ' FALSE '), 'Boolean');
    assert.equal(detect('flag', 'True'), 'String');
    assert.equal(detect('flag', 'yes'), 'String');
  });

  test('date strings are DateTime whatever the key', () => {
    assert.equal(detect('signup', '2024-01-02'), 'DateTime');
    assert.equal(detect('signup', '2024/01/02'), 'DateTime');
    assert.equal(detect('signup', '01-02-2024'), 'DateTime');
    assert.equal(detect('signup', '2024-01-02T03:04:05Z'), 'DateTime');
    assert.equal(detect('signup', '2024-01-02 03:04:05.123+02:00'), 'DateTime');
    assert.equal(detect('signup', '2024-01-02T03:04:05.678901'), 'DateTime');
    assert.equal(detect('signup', 'Tue, 1 Jul 2003 10:52:37 +0200'), 'DateTime');
    assert.equal(detect('signup', ' 2024-01-02 '), 'DateTime');
  });

  test('strings that only look a little like dates stay String', () => {
    assert.equal(detect('signup', '2024-1-2'), 'String');
    assert.equal(detect('signup', '2024-01-02x'), 'String');
    assert.equal(detect('signup', 'January 2, 2024'), 'String');
    assert.equal(detect('signup', '20240102'), 'String');
  });

  test('a moment-like key makes a recent unix timestamp a DateTime', () => {
    for (const key of ['timestamp', 'sent_time', 'birthdate', 'paid_at', 'paid-at', 'createdAt', 'UpdatedAt']) {
      assert.equal(detect(key, NOW_SECONDS), 'DateTime', key);
    }
    assert.equal(detect('created_at', NOW_SECONDS - SIX_MONTHS_SECONDS), 'DateTime');
    assert.equal(detect('created_at', NOW_SECONDS - SIX_MONTHS_SECONDS - 1), 'Numeric');
    assert.equal(detect('created_at', NOW_SECONDS + 0.5), 'Numeric');
    assert.equal(detect('created_at', NOW_MS), 'DateTime');
    assert.equal(detect('amount', NOW_SECONDS), 'Numeric');
    assert.equal(detect('created_at', 'yesterday'), 'String');
  });

  test('utm, feature flag and survey response keys are always String', () => {
    assert.equal(detect('utm_source', 123), 'String');
    assert.equal(detect('UTM_campaign', true), 'String');
    assert.equal(detect('$initial_utm_medium', 5), 'String');
    assert.equal(detect('$feature/new-onboarding', true), 'String');
    assert.equal(detect('$feature_flag_response', false), 'String');
    assert.equal(detect('$survey_response', 9), 'String');
    assert.equal(detect('$survey_response_2', 'true'), 'String');
    assert.equal(detect('utm_source', null), 'String');
  });
});
