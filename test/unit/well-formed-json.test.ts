import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { parseWellFormedJson } from '../../src/util/well-formed-json.js';

test('lone surrogates become U+FFFD in keys and strings at any depth; pairs and other values stay', () => {
  const text = String.raw`{"a\ud800":["x\udc00y",{"\udfff":"\ud83d"}],"pair":"\ud83d\ude00","n":1.5,"t":true,"z":null}`;
  assert.deepEqual(parseWellFormedJson(text), {
    'a\ufffd': ['x\ufffdy', { '\ufffd': '\ufffd' }],
    pair: '\u{1F600}',
    n: 1.5,
    t: true,
    z: null,
  });
});

test('raw lone surrogates (as lz-string decodes them) are replaced too; __proto__ stays a key', () => {
  const parsed = parseWellFormedJson('{"__proto__":{"k":"\ud800"},"v":"a\udc00"}') as Record<string, unknown>;
  assert.deepEqual(Object.keys(parsed), ['__proto__', 'v']);
  assert.deepEqual(Object.getOwnPropertyDescriptor(parsed, '__proto__')!.value, { k: '\ufffd' });
  assert.equal(parsed.v, 'a\ufffd');
  assert.equal(Object.getPrototypeOf(parsed), Object.prototype);
});

test('U+0000 becomes U+FFFD in keys and strings at any depth; an escaped backslash before u0000 is text', () => {
  const text = String.raw`{"k\u0000":["a\u0000b",{"\u0000":"\u0000"}],"path":"C:\\u0000"}`;
  assert.deepEqual(parseWellFormedJson(text), { 'k\ufffd': ['a\ufffdb', { '\ufffd': '\ufffd' }], path: 'C:\\u0000' });
});

test('any JSON of any UTF-16 strings parses to the same value with every string made well-formed and free of NUL', () => {
  const storable = (value: unknown): unknown => {
    if (typeof value === 'string') return value.toWellFormed().replaceAll('\0', '\ufffd');
    if (Array.isArray(value)) return value.map(storable);
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [storable(key) as string, storable(item)]));
  };
  // Any UTF-16 code unit, surrogates often: fast-check's own units only build well-formed text.
  const codeUnit = fc
    .oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0xd800, max: 0xdfff }), fc.integer({ min: 0, max: 0xffff }))
    .map((unit) => String.fromCharCode(unit));
  const json = fc.jsonValue({ maxDepth: 3, stringUnit: codeUnit });
  fc.assert(
    fc.property(json, (value) => {
      const text = JSON.stringify(value);
      const parsed = parseWellFormedJson(text);
      assert.deepEqual(parsed, storable(JSON.parse(text)));
      assert.ok(JSON.stringify(parsed).isWellFormed() && !/\\u[dD][89a-fA-F]/.test(JSON.stringify(parsed)));
      assert.ok(!JSON.stringify(parsed).includes('\\u0000'));
    }),
  );
});
