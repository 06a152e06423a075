import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ValidationError } from '../../src/errors.js';
import { commaListParam, isTruthyFlag, readBoolean, readFlag, stringParam } from '../../src/util/request-params.js';

test('isTruthyFlag reads as PostHog str_to_bool: y/yes/t/true/on/1 in any case around blanks, JSON true; anything else is false', () => {
  for (const value of [true, 'y', 'YES', 't', ' True ', 'oN', '1']) assert.equal(isTruthyFlag(value), true, String(value));
  for (const value of [false, 'no', '0', 'maybe', '', 1, null, undefined]) assert.equal(isTruthyFlag(value), false, String(value));
});

test('readBoolean reads as DRF BooleanField: its words in lower, capitalised or upper case; anything else is a 400', () => {
  for (const value of [true, 'true', 'True', 'TRUE', 'yes', 'Y', 'on', '1', 1]) assert.equal(readBoolean(value, 'f'), true, String(value));
  for (const value of [false, 'false', 'No', 'OFF', 'n', 'f', '0', 0]) assert.equal(readBoolean(value, 'f'), false, String(value));
  for (const value of [undefined, null, '']) assert.equal(readBoolean(value, 'f'), undefined);
  for (const value of ['tRue', ' true', 'maybe', 2, []]) assert.throws(() => readBoolean(value, 'f'), ValidationError, String(value));
});

test('readFlag takes true/false in any case, 1/0 and JSON booleans only', () => {
  for (const value of [true, 'true', 'tRUE', '1', 1]) assert.equal(readFlag(value, 'f'), true, String(value));
  for (const value of [false, 'False', '0', 0]) assert.equal(readFlag(value, 'f'), false, String(value));
  for (const value of [undefined, null, '']) assert.equal(readFlag(value, 'f'), undefined);
  for (const value of ['yes', 'on', 't', 2, {}]) assert.throws(() => readFlag(value, 'f'), ValidationError, String(value));
});

test('a repeated parameter reads as its last value, or as a comma list of all', () => {
  const query = { name: ['a,b', ' c ', ''], nul: 'x\u0000' };
  assert.equal(stringParam(query, 'name'), '');
  assert.deepEqual(commaListParam(query, 'name'), ['a', 'b', 'c']);
  assert.equal(stringParam(query, 'nul'), 'x\uFFFD');
  assert.equal(stringParam(query, 'absent'), undefined);
});
