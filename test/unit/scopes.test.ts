import assert from 'node:assert/strict';
import { test } from 'node:test';
import { grantsScope, validateScopes } from '../../src/keys/scopes.js';
import { ValidationError } from '../../src/errors.js';

test('* grants every scope and write implies read', () => {
  assert.equal(grantsScope(['*'], 'person:write'), true);
  assert.equal(grantsScope(['person:write'], 'person:read'), true);
  assert.equal(grantsScope(['person:read'], 'person:write'), false);
  assert.equal(grantsScope(['person:read'], 'cohort:read'), false);
  assert.equal(grantsScope([], 'person:read'), false);
});

test('scope validation names the bad scope', () => {
  assert.deepEqual(validateScopes(['person:read', 'person:read', '*']), ['person:read', '*']);
  assert.throws(() => validateScopes([]), ValidationError);
  assert.throws(() => validateScopes(['person:admin']), /Invalid scope: person:admin/);
  assert.throws(() => validateScopes(['nothing:read']), /Invalid scope: nothing:read/);
  assert.throws(() => validateScopes(['person:read:x']), /Invalid scope/);
});
