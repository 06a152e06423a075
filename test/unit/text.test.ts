import assert from 'node:assert/strict';
import { test } from 'node:test';
import { textOf } from '../../src/util/text.js';

test('textOf gives what String gives, except for objects that carry their own toString or valueOf', () => {
  for (const value of ['a b', '', 0, -1.5, true, null, undefined, {}, [], [1, 'x', null, [2, 3]], { a: 1 }]) {
    assert.equal(textOf(value), String(value));
  }
  assert.equal(textOf({ toString: [] }), '{"toString":[]}');
  assert.equal(textOf({ valueOf: 1, a: 'b' }), '{"valueOf":1,"a":"b"}');
  assert.equal(textOf(['x', { toString: null }]), 'x,{"toString":null}');
  assert.throws(() => String({ toString: [] }), TypeError, 'the failure textOf avoids');
});
