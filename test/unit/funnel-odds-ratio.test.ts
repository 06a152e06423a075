import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { correlate, isInsignificant, isSkewed, oddsRatio } from '../../src/insights/funnels/odds-ratio.js';

const close = (actual: number, expected: number) => assert.ok(Math.abs(actual - expected) < 1e-12, `${actual} ≠ ${expected}`);

describe('funnel correlation odds ratios', () => {
  test('a prior of one in every cell: no division by zero', () => {
    close(oddsRatio({ success: 5, failure: 0 }, { success: 10, failure: 10 }), 11);
    close(oddsRatio({ success: 0, failure: 5 }, { success: 10, failure: 10 }), 1 / 11);
    close(oddsRatio({ success: 10, failure: 1 }, { success: 11, failure: 11 }), 121 / 4);
    close(oddsRatio({ success: 2, failure: 0 }, { success: 2, failure: 2 }), 9);
    close(oddsRatio({ success: 0, failure: 1 }, { success: 2, failure: 2 }), 1 / 3);
  });

  test('rows of fewer than 25 actors, or of 2% of the funnel when that is fewer, are noise', () => {
    assert.equal(isInsignificant({ success: 1, failure: 0 }, { success: 10, failure: 10 }), false);
    assert.equal(isInsignificant({ success: 24, failure: 0 }, { success: 1000, failure: 1000 }), true);
    assert.equal(isInsignificant({ success: 20, failure: 5 }, { success: 1000, failure: 1000 }), false);
    assert.equal(isInsignificant({ success: 0, failure: 0 }, { success: 1, failure: 1 }), true);
  });

  test('skewed past ten to one', () => {
    assert.equal(isSkewed({ success: 10, failure: 1 }), false);
    assert.equal(isSkewed({ success: 11, failure: 1 }), true);
    assert.equal(isSkewed({ success: 1, failure: 11 }), true);
  });

  test('the ten most positive rows, highest first, then the ten most negative, lowest first', () => {
    const rows = Array.from({ length: 30 }, (_, index) => ({ name: `e${index}`, visited: { success: index, failure: 29 - index } }));
    const { rows: kept, skewed } = correlate(rows, { success: 100, failure: 100 });
    assert.equal(skewed, false);
    assert.deepEqual(
      kept.map((row) => row.name),
      ['e29', 'e28', 'e27', 'e26', 'e25', 'e24', 'e23', 'e22', 'e21', 'e20', 'e0', 'e1', 'e2', 'e3', 'e4', 'e5', 'e6', 'e7', 'e8', 'e9'],
    );
    assert.ok(kept.slice(0, 10).every((row) => row.correlationType === 'success' && row.oddsRatio > 1));
    assert.ok(kept.slice(10).every((row) => row.correlationType === 'failure' && row.oddsRatio <= 1));
  });

  test('without successes or without failures there is nothing to compare', () => {
    assert.deepEqual(correlate([{ visited: { success: 3, failure: 0 } }], { success: 3, failure: 0 }), { rows: [], skewed: true });
    assert.deepEqual(correlate([], { success: 0, failure: 0 }), { rows: [], skewed: true });
  });
});
