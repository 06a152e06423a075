import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nestsDeeperThan } from '../../src/util/json-depth.js';

const arrays = (levels: number): unknown => JSON.parse(`${'['.repeat(levels)}${']'.repeat(levels)}`);
const objects = (levels: number): unknown => JSON.parse(`${'{"a":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`);

test('a value nests as deep as its deepest array or object; primitives add no level', () => {
  for (const value of [1, 'text', null, true]) assert.equal(nestsDeeperThan(value, 0), false);
  assert.equal(nestsDeeperThan([], 0), true);
  assert.equal(nestsDeeperThan([], 1), false);
  assert.equal(nestsDeeperThan({ a: [1, { b: 'x' }], c: 2 }, 3), false);
  assert.equal(nestsDeeperThan({ a: [1, { b: 'x' }], c: 2 }, 2), true);
  assert.equal(nestsDeeperThan({ a: 1, b: [2, [3, [4]]] }, 3), true);
  // A `__proto__` key of parsed JSON is a key like any other.
  assert.equal(nestsDeeperThan(JSON.parse('{"__proto__":[[1]]}'), 3), false);
  assert.equal(nestsDeeperThan(JSON.parse('{"__proto__":[[1]]}'), 2), true);
});

test('the limit is exact for arrays and objects, and any depth is measured without overflowing the stack', () => {
  for (const build of [arrays, objects]) {
    assert.equal(nestsDeeperThan(build(128), 128), false);
    assert.equal(nestsDeeperThan(build(129), 128), true);
  }
  assert.equal(nestsDeeperThan(arrays(200_000), 128), true);
});
