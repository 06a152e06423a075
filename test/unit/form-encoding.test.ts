import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { formEncode, formPair } from '../../src/util/form-encoding.js';

function viaUrlSearchParams(key: string, value: string): string {
  return new URLSearchParams([[key, value]]).toString();
}

test('form encoding writes what URLSearchParams writes, for any text (lone surrogates too)', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme-composite' }), (key, value) => {
      assert.equal(formPair(key, value), viaUrlSearchParams(key, value));
    }),
    { numRuns: 2000 },
  );
  const special = ' !"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~\u00e9\u{1f600}\ud800x';
  assert.equal(formEncode(special), viaUrlSearchParams('', special).slice(1));
  assert.equal(formPair('events', [{ id: 'a b' }]), 'events=%5B%7B%22id%22%3A%22a+b%22%7D%5D');
  assert.equal(formPair('n', 0), 'n=0');
});
