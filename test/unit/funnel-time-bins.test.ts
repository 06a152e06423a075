import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { autoBinCount, binIndex, histogramBins, histogramPlan } from '../../src/insights/funnels/funnel-time-bins.js';

describe('time-to-convert bins', () => {
  test('the automatic count is the cube root of the samples, rounded up, from 1 to 60', () => {
    assert.deepEqual([0, 1, 2, 3, 8, 9, 27, 28, 216_000, 10_000_000].map(autoBinCount), [1, 1, 2, 2, 2, 3, 3, 4, 60, 60]);
  });

  test("PostHog's three conversions (2220 s, 3600 s, 82 800 s): two automatic bins, and one more for the longest", () => {
    const plan = histogramPlan({ samples: 3, shortest: 2220, longest: 82_800 }, null);
    assert.deepEqual(plan, { from: 2220, width: 40_290, binCount: 2 });
    const counts = new Map<number, number>();
    for (const sample of [2220, 3600, 82_800]) counts.set(binIndex(plan, sample), (counts.get(binIndex(plan, sample)) ?? 0) + 1);
    assert.deepEqual(histogramBins(plan, counts), [
      [2220, 2],
      [42_510, 0],
      [82_800, 1],
    ]);
  });

  test('seven bins asked for: the width is rounded up, so the last bin starts past the longest sample', () => {
    const plan = histogramPlan({ samples: 3, shortest: 2220, longest: 82_800 }, 7);
    assert.deepEqual(plan, { from: 2220, width: 11_512, binCount: 7 });
    assert.equal(binIndex(plan, 82_800), 6);
    assert.deepEqual(
      histogramBins(
        plan,
        new Map([
          [0, 2],
          [6, 1],
        ]),
      ).map(([start]) => start),
      [2220, 13_732, 25_244, 36_756, 48_268, 59_780, 71_292, 82_804],
    );
  });

  test('one distinct sample gets a bin of 60 seconds; fractional samples bin from the whole second below', () => {
    assert.deepEqual(histogramPlan({ samples: 4, shortest: 10_800, longest: 10_800 }, null), { from: 10_800, width: 60, binCount: 2 });
    assert.deepEqual(histogramPlan({ samples: 2, shortest: 99.5, longest: 200.25 }, 2), { from: 99, width: 51, binCount: 2 });
  });
});
