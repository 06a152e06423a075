import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { mergeProperties, setProperty } from '../../src/util/merge-properties.js';

test('mergeProperties gives what object spread gives, key order included', () => {
  const key = fc.oneof(fc.string(), fc.constantFrom('__proto__', 'toString', '0', '10', 'constructor'));
  const properties = fc.dictionary(key, fc.jsonValue()).map((entries) => JSON.parse(JSON.stringify(entries)) as Record<string, unknown>);
  fc.assert(
    fc.property(properties, properties, properties, (a, b, c) => {
      const merged = mergeProperties(a, b, c);
      const spread = { ...a, ...b, ...c };
      assert.deepEqual(Object.keys(merged), Object.keys(spread));
      assert.equal(JSON.stringify(merged), JSON.stringify(spread));
      assert.equal(Object.getPrototypeOf(merged), Object.prototype);
    }),
  );
});

test('mergeProperties copies: later changes to the result leave the sources alone', () => {
  const source = { a: 1 };
  const merged = mergeProperties(source);
  merged.b = 2;
  assert.deepEqual(source, { a: 1 });
});

test('setProperty stores __proto__ as a key instead of replacing the prototype', () => {
  const target: Record<string, unknown> = {};
  setProperty(target, '__proto__', { polluted: true });
  setProperty(target, 'a', 1);
  assert.equal(Object.getPrototypeOf(target), Object.prototype);
  assert.equal(JSON.stringify(target), '{"__proto__":{"polluted":true},"a":1}');
});
